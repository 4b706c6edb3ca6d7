// The realm's side of sending, in one process and nothing else: the bench's channel realm (from a
// data directory `bench -- instructions` built), its actor sending messages in batches as the realm
// thread does (commands from a caller, the content rendered beforehand as the serving thread
// renders it, the emissions serialized as the realm thread posts them), every subscriber holding
// a queue. Run by instructions.ts under valgrind: `node sendInProcess.js <dataDir> <warm-up
// messages> <messages> <batch>`; prints what it sent as JSON.
import { serialize } from 'node:v8';
import { loadConfig } from '../../src/config.js';
import type { Emitted } from '../../src/events/types.js';
import { ContextRenderer } from '../../src/messages/render.js';
import type { SendInput } from '../../src/realm/commands/messages.js';
import type { RealmHandle } from '../../src/realm/handle.js';
import { Realms } from '../../src/realm/registry.js';
import { openStore } from '../../src/setup.js';
import { Role } from '../../src/users/records.js';
import { shortMessage } from '../render.js';

const [dataDir, warmArg, countArg, batchArg] = process.argv.slice(2);
if (!dataDir || !warmArg || !countArg || !batchArg) throw new Error('usage: sendInProcess.js <dataDir> <warm-up messages> <messages> <batch>');
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
  hasQueue: () => true,
  allPublicStreamsUsers: () => [],
};

const config = { ...loadConfig({}), dataDir, mode: 'production' as const };
const store = openStore(config);
const realms = new Realms(store, config, elsewhere);
const realmId = realms.directory().realms[0]![0];
const realm: RealmHandle = realms.byId(realmId)!;
const sender = [...store.users.ofRealm(realmId)].find((user) => user.role === Role.owner)!;

/** The content as the serving thread renders it, with the realm's current rendering context. */
async function prerendered(): Promise<SendInput> {
  const renderer = new ContextRenderer(await realm.ask('render.context', null, {}));
  const options = { translateEmoticons: false, now: config.clock.now() };
  return { type: 'stream', to: ['count'], topic: 'bench', content: shortMessage, readBySender: false, client: 'bench', prerendered: { content: shortMessage, version: renderer.version, translateEmoticons: false, rendered: renderer.render(shortMessage, options) } };
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
console.log(JSON.stringify({ sent: 1 + warm + count, emissions, bytesPerEmission: Math.round(bytes / emissions) }));
