// Change sets: every put and remove a write makes, recorded as it happens, so that the same change
// can be made to another copy of the store (a cluster's realm log; a replica rebuilding a realm).
// Tables derived from others (the search index's postings) are not recorded: the copy derives them
// (Store.applyChanges with `reindex`). Nor are the writes of a conversation log's fold (a hundred
// users' chunks, every 64 messages of a channel of a hundred): a marker stands in their place, and
// the copy folds the log again from its tables as the changes before the marker left them, which
// are the writer's at that point.
// Values are encoded when recorded (msgpack, without the store's shared structures), so a record
// changed in memory after it was saved does not change what was recorded.
import type { Database, Key } from 'lmdb';
import { Packr } from 'msgpackr';

/** One put (with the value's encoding) or remove (no value) on a named sub-database; or a marker
 * (FOLD_LOG) in the place of the name, with what it folds as the key. */
export type Change = [db: string, key: Key, value?: Uint8Array];

/** The marker of a conversation log's fold in a change set: `[FOLD_LOG, recipientId]`. */
export const FOLD_LOG = '@foldLog';

/** Runs `fold`, whose writes follow from the tables as they are, with `marker` recorded in place of
 * its writes. */
export function recordedAsMarker(tap: ChangeTap, marker: Change, fold: () => void): void {
  const current = tap.current;
  current?.push(marker);
  tap.current = undefined;
  try {
    fold();
  } finally {
    tap.current = current;
  }
}

/** A plain encoder: the same value always gives the same bytes, whatever the store's structures. */
export const changeCodec = new Packr({ useRecords: false, moreTypes: false });

/** Where a store's tables report their puts and removes. */
export interface ChangeTap {
  /** The change set of the write under way, while a recorder listens (else undefined). */
  current: Change[] | undefined;
  /** Puts and removes so far, on every tapped table: whether a write changed anything. */
  count: number;
}

/** Makes `db` count its puts and removes in the tap and, unless it is derived from other tables
 * (`recorded: false`), report them while a recording is under way. */
export function tapWrites<D extends Database<unknown, Key>>(db: D, name: string, tap: ChangeTap, { recorded = true } = {}): D {
  const put = db.put.bind(db);
  const remove = db.remove.bind(db);
  db.put = ((key: Key, value: unknown, ...rest: unknown[]) => {
    tap.count++;
    if (recorded) tap.current?.push([name, key, changeCodec.pack(value)]);
    return (put as (...args: unknown[]) => unknown)(key, value, ...rest);
  }) as D['put'];
  db.remove = ((key: Key, ...rest: unknown[]) => {
    tap.count++;
    if (recorded) tap.current?.push([name, key]);
    return (remove as (...args: unknown[]) => unknown)(key, ...rest);
  }) as D['remove'];
  return db;
}
