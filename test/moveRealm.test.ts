// `manage move-realm` finishes a move that stopped half-way, wherever it stopped: with a partial
// copy in the new shard (no realm row yet: dropped and made again from the realm as it is now),
// with the realm whole in both shards (the old one lets go), and with rows the old shard left
// behind once its realm row had gone (they go). Each time the realm ends whole in its new shard,
// with the digest it had and its saved presence, and nothing of it elsewhere. (The command as
// operators run it, and a server serving the moved realm, are in realmShards.test.ts.)
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { moveRealm } from '../src/cli/moveRealm.js';
import { idKinds } from '../src/store/idCounters.js';
import { EventQueues } from '../src/events/queues.js';
import { Realms } from '../src/realm/registry.js';
import { RealmShards } from '../src/realm/shards.js';
import { seedDemoRealm } from '../src/seed/demo.js';
import { openShards } from '../src/setup.js';
import type { Change } from '../src/store/changes.js';
import { realmDigest, realmRows } from '../src/store/realmData.js';
import type { Store } from '../src/store/store.js';
import type { PresenceSnapshot } from '../src/users/presence.js';
import { testConfig } from './helpers/server.js';

const config = testConfig({ realmThreads: 2 });
let stores: Store[];
let realmId: number;
let digest: string;

const rowsIn = (store: Store): Change[] => [...realmRows(store, realmId, { form: 'stored' })];
const apply = (store: Store, rows: Change[]) => store.applyChanges(rows, { form: 'stored' });

test.before(async () => {
  stores = openShards(config, { placing: true });
  const realms = new RealmShards(
    stores.map((store) => new Realms(store, config, new EventQueues(stores[0]!))),
    2,
  );
  await seedDemoRealm(realms, config.passwordHashCost);
  await realms.idle();
  realmId = realms.defaultRealm()!.realm.id;
  digest = realmDigest(stores[0]!, realmId);
});

test.after(async () => {
  await Promise.all(stores.map((store) => store.close()));
  rmSync(config.dataDir, { recursive: true, force: true });
});

/** The realm's presence as its actor saved it. */
const presence: PresenceSnapshot = { lastUpdateId: 7, users: [[1, { lastActive: 1_700_000_000, lastConnected: 1_700_000_000, lastUpdateId: 7 }]] };

/** The realm is whole in shard `to`, its presence with it, and has nothing left in the other. */
function wholeIn(to: number): void {
  assert.is(realmDigest(stores[to]!, realmId), digest, `the realm in shard ${to} is as it was`);
  assert.equal(stores[to]!.savedPresence(realmId), presence, `its presence is in shard ${to}`);
  assert.equal(rowsIn(stores[1 - to]!), [], `shard ${1 - to} holds nothing of it`);
  assert.is(stores[1 - to]!.savedPresence(realmId), undefined, `shard ${1 - to} holds no presence of it`);
}

test('a partial copy in the new shard (its realm row not yet there) is made again whole, as the realm is now', async () => {
  const copied = rowsIn(stores[0]!).filter(([table]) => table !== 'realms');
  await apply(stores[1]!, copied);
  // The copy had taken presence that is older than what the realm saved since.
  await stores[1]!.savePresence(realmId, { lastUpdateId: 3, users: [] });
  await stores[0]!.savePresence(realmId, presence);
  // Meanwhile a server served the realm from its shard (the copy holds no realm yet): a message went.
  const [, gone] = copied.find(([table]) => table === 'messages')!;
  await apply(stores[0]!, [['messages', gone]]);
  digest = realmDigest(stores[0]!, realmId);
  const summary = await moveRealm(stores, '', 1);
  assert.equal([summary.from, summary.to], [0, 1]);
  wholeIn(1);
  // Its IDs are recorded where it is now: a server holding shard 1 alone counts on from them.
  assert.equal(idKinds.filter((kind) => stores[1]!.lastId(kind) < stores[0]!.lastId(kind)), []);
});

test('a realm whole in both shards is let go of where it is not going', async () => {
  await apply(stores[0]!, rowsIn(stores[1]!));
  assert.is(realmDigest(stores[0]!, realmId), digest);
  const summary = await moveRealm(stores, '', 1);
  assert.equal([summary.from, summary.rows], [0, 0], 'nothing copied again');
  wholeIn(1);
});

test('rows the old shard left behind once its realm row had gone are let go of; then the realm is where it is going already', async () => {
  // A let-go removes the realm's row, then the others from the last realmRows finds: what one that
  // stopped half-way leaves is the first half, less the realm's row.
  const rows = rowsIn(stores[1]!);
  await apply(stores[0]!, rows.slice(1, rows.length >> 1));
  const summary = await moveRealm(stores, '', 1);
  assert.is(summary.from, null);
  wholeIn(1);
  await moveRealm(stores, '', 1).then(
    () => assert.unreachable('a realm in its shard already is refused'),
    (error: Error) => assert.match(error.message, /in shard 1 already/),
  );
  // And back, whole.
  await moveRealm(stores, '', 0);
  wholeIn(0);
});

test.run();
