// `manage move-realm`: a realm moved whole from its shard to another (several realm threads:
// ARCHITECTURE.md, "Several realm threads"), on a stopped server's data directory. Its rows keep
// their bytes and its IDs (unique server-wide), so the realm is the same realm, with the same
// digest. The copy goes in frames with the realm's own row last, so a shard holds the realm only
// once all of it is there (the ID records its IDs need with it); then the old shard lets go of the
// realm's row first and its other rows after, in an order that a rerun can always finish. A move that stopped half-way is finished by the same command: a copy without the realm's
// row is dropped and made again, and a realm in two shards (copied, not yet let go of) is let go of
// where it is not going. Uploads and exports stay where they are (the file storage is the server's).
import { realmRows } from '../store/realmData.js';
import type { Change } from '../store/changes.js';
import { idKinds } from '../store/idCounters.js';
import type { Store } from '../store/store.js';

/** Rows written (or removed) a transaction. */
const ROWS_PER_FRAME = 10_000;

export class MoveError extends Error {}

export interface MoveSummary {
  realm_id: number;
  /** The shard it came from (null: a move that stopped half-way had copied it, and only rows it
   * left behind went). */
  from: number | null;
  to: number;
  rows: number;
}

/** Applies `changes` to the store in frames of ROWS_PER_FRAME; answers how many there were. */
async function inFrames(store: Store, changes: Iterable<Change>): Promise<number> {
  let frame: Change[] = [];
  let count = 0;
  for (const change of changes) {
    frame.push(change);
    count++;
    if (frame.length < ROWS_PER_FRAME) continue;
    await store.applyChanges(frame, { form: 'stored' });
    frame = [];
  }
  if (frame.length > 0) await store.applyChanges(frame, { form: 'stored' });
  return count;
}

/** Every row the realm has in the store, removed: its saved presence (a copy left behind would
 * come back as the realm's presence, should the realm return to the shard), then its own row, each
 * in a transaction of its own (the shard no longer holds the realm from then on), then the others
 * in the reverse of the order realmRows finds them. realmRows finds a row through rows it found
 * before it (a message through its sender's rows, a user's rows through the user), so whatever a
 * removal that stopped half-way left is still found by the next. Only the keys are kept. Answers
 * how many rows there were. */
async function letGo(store: Store, realmId: number): Promise<number> {
  const presence = store.savedPresence(realmId) ? 1 : 0;
  if (presence) await store.savePresence(realmId, undefined);
  const keys: Change[] = [];
  for (const [table, key] of realmRows(store, realmId, { form: 'stored' })) keys.push([table, key]);
  const [own] = keys;
  if (own?.[0] === 'realms') await store.applyChanges([keys.shift()!], { form: 'stored' });
  return presence + (own?.[0] === 'realms' ? 1 : 0) + (await inFrames(store, keys.reverse()));
}

/** The target's ID records raised to the source's, where the source's are higher: every shard's
 * records are what the shared counters start from, and a shard may come to hold all the realms
 * (a one-thread server then counts from its records alone). */
function idRecords(source: Store, target: Store): Change[] {
  return idKinds.filter((kind) => source.lastId(kind) > target.lastId(kind)).map((kind): Change => ['meta', `ids:${kind}`, source.storedForm('meta').get(`ids:${kind}`)!]);
}

export async function moveRealm(stores: readonly Store[], subdomain: string, to: number): Promise<MoveSummary> {
  if (!Number.isInteger(to) || to < 0 || to >= stores.length) throw new MoveError(`no shard ${to}: this data directory has shards 0 to ${stores.length - 1} (PARLEY_REALM_THREADS makes more)`);
  const holders = stores.flatMap((store, shard) => [...store.realms.getRange()].filter(({ value }) => value.subdomain === subdomain).map(({ value }) => ({ shard, id: value.id })));
  const [first] = holders;
  if (!first) throw new MoveError(`no realm '${subdomain}'`);
  const target = stores[to]!;
  const from = holders.find((holder) => holder.shard !== to);
  let rows = 0;
  if (from && !holders.some((holder) => holder.shard === to)) {
    // What a move that stopped half-way copied (without the realm's row) goes first.
    await letGo(target, from.id);
    const source = stores[from.shard]!;
    rows = await inFrames(target, (function* () {
      for (const row of realmRows(source, from.id, { form: 'stored' })) if (row[0] !== 'realms') yield row;
    })());
    const presence = source.savedPresence(from.id);
    if (presence) await target.savePresence(from.id, presence);
    // The realm's row, last, with the ID records its IDs need.
    await target.applyChanges([['realms', from.id, source.storedForm('realms').get(from.id)!], ...idRecords(source, target)], { form: 'stored' });
    rows++;
  }
  // The realm's rows go from every other shard: those of this move, and any a move that stopped
  // half-way left behind once the realm's row had gone.
  let left = 0;
  for (const [shard, store] of stores.entries()) if (shard !== to) left += await letGo(store, first.id);
  if (!from && left === 0) throw new MoveError(`realm '${subdomain}' is in shard ${to} already`);
  return { realm_id: first.id, from: from?.shard ?? null, to, rows };
}
