// The realm's side of sending, in one process and nothing else: the bench's channel realm (from a
// data directory `bench -- instructions` built), its actor sending messages in batches as the realm
// thread does (commands from a caller, the content rendered beforehand as the serving thread
// renders it, the emissions serialized as the realm thread posts them), every subscriber holding
// a queue. In a one-node cluster (`cluster`) the realm is the cluster's: its IDs come in blocks
// from counters in memory, its writes are recorded and appended to its log by the cluster's
// writer, whose publish is answered a turn of the event loop later as a NATS server on loopback
// would (what NATS and its socket cost is not counted), and its events go out as standalone's.
// Run by instructions.ts under valgrind: `node sendInProcess.js <standalone|cluster> <dataDir>
// <warm-up messages> <messages> <batch>`; prints what it sent as JSON.
import { serialize } from 'node:v8';
import { IdBlocks } from '../../src/cluster/ids.js';
import { RealmWriter } from '../../src/cluster/log.js';
import { kvCodec } from '../../src/cluster/watched.js';
import { loadConfig } from '../../src/config.js';
import type { Emitted } from '../../src/events/types.js';
import { ContextRenderer } from '../../src/messages/render.js';
import type { SendInput } from '../../src/realm/commands/messages.js';
import type { RealmLinks } from '../../src/realm/actor.js';
import type { RealmHandle } from '../../src/realm/handle.js';
import { Realms } from '../../src/realm/registry.js';
import { openStore } from '../../src/setup.js';
import type { Change } from '../../src/store/changes.js';
import type { Store } from '../../src/store/store.js';
import { idKinds } from '../../src/store/idCounters.js';
import { Role } from '../../src/users/records.js';
import { MemoryIdCounters } from '../../test/helpers/memoryIdCounters.js';
import { shortMessage } from '../render.js';

const [setup, dataDir, warmArg, countArg, batchArg] = process.argv.slice(2);
if ((setup !== 'standalone' && setup !== 'cluster') || !dataDir || !warmArg || !countArg || !batchArg) throw new Error('usage: sendInProcess.js <standalone|cluster> <dataDir> <warm-up messages> <messages> <batch>');
const [warm, count, batch] = [Number(warmArg), Number(countArg), Number(batchArg)];

/** The serving thread, as the realm sees it: every user holds a queue, and emissions leave as the
 * realm thread posts them. */
let emissions = 0;
let bytes = 0;
const elsewhere = {
  publish(_realmId: number, emitted: readonly Emitted[]): void {
    if (emitted.length === 0) return;
    emissions += emitted.length;
    bytes += serialize(emitted).length;
  },
  position: () => emissions,
  epoch: () => 0,
  hasQueue: () => true,
  allPublicStreamsUsers: () => [],
};

/** What a one-node cluster links its realm to: blocks of IDs above those the data directory used,
 * and the log's writer. */
let logBytes = 0;
async function clusterLinks(store: Store, realmId: number): Promise<RealmLinks> {
  const counters = new MemoryIdCounters();
  for (const kind of idKinds) await counters.create(kind, kvCodec.pack(store.meta.get(`ids:${kind}`) ?? 0));
  let seq = 0;
  const publisher = {
    publish: (_subject: string, data: Uint8Array) => {
      logBytes += data.length;
      return new Promise<{ seq: number }>((resolve) => setImmediate(() => resolve({ seq: ++seq })));
    },
    // Every answer arrives: no try is made again.
    storedAs: () => Promise.resolve(undefined),
  };
  const writer = new RealmWriter(publisher, realmId, 0, () => undefined, () => undefined);
  const log = { append: (_realmId: number, changes: readonly Change[]) => writer.append(changes), abandon: () => undefined };
  return { log, ids: new IdBlocks(counters) };
}

const config = { ...loadConfig({}), dataDir, mode: 'production' as const };
const store = openStore(config);
const realms = new Realms(store, config, elsewhere);
const realmId = realms.directory().realms[0]![0];
const realm: RealmHandle = setup === 'cluster' ? realms.activate(store.realms.get(realmId)!, await clusterLinks(store, realmId)) : realms.byId(realmId)!;
const sender = [...store.users.ofRealm(realmId)].find((user) => user.role === Role.owner)!;

/** The content as the serving thread renders it, with the realm's current rendering context. */
async function prerendered(): Promise<SendInput> {
  const renderer = new ContextRenderer(await realm.ask('render.context', null, {}));
  const options = { translateEmoticons: false, now: config.clock.now() };
  return { type: 'stream', to: ['count'], topic: 'bench', content: shortMessage, readBySender: false, client: 'bench', prerendered: { content: shortMessage, version: renderer.version, translateEmoticons: false, ...renderer.render(shortMessage, options) } };
}

// The channel's first message changes the rendering context (the channel's first message ID).
await realm.ask('messages.send', sender.id, await prerendered());
const input = await prerendered();
const send = async (messages: number) => {
  for (let sent = 0; sent < messages; sent += batch) await Promise.all(Array.from({ length: batch }, () => realm.ask('messages.send', sender.id, input)));
};
await send(warm);
await send(count);
await realms.stop();
await store.close();
console.log(JSON.stringify({ setup, sent: 1 + warm + count, emissions, bytesPerEmission: Math.round(bytes / emissions), logBytesPerMessage: Math.round(logBytes / (1 + warm + count)) }));
