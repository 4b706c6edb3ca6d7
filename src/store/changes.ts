// Change sets: every put and remove a write makes, recorded as it happens, so that the same change
// can be made to another copy of the store (a cluster's realm log; a replica rebuilding a realm).
// Tables derived from others (the search index's postings) are not recorded: the copy derives them
// (Store.applyChanges with `reindex`). Nor are the writes of a conversation log's fold (a hundred
// users' chunks, every 64 messages of a channel of a hundred): a marker stands in their place, and
// the copy folds the log again from its tables as the changes before the marker left them, which
// are the writer's at that point.
// Values are recorded in their stored form: encoded once, when the put is made, the bytes go both
// into the table and into the change set (a copy of them for tables of bytes), so a record changed
// in memory after it was saved does not change what was recorded, and whoever applies the set puts
// the bytes as they are. Change sets and snapshots written before held values in the change
// encoding (plain msgpack, the same bytes for the same value in every store), still applied.
import { asBinary, type Database, type Key } from 'lmdb';
import { Packr } from 'msgpackr';

/** One put (with the value's bytes) or remove (no value) on a named sub-database; or a marker
 * (FOLD_LOG) in the place of the name, with what it folds as the key. */
export type Change = [db: string, key: Key, value?: Uint8Array];

/** How a change or a row gives its value: as its table stores it, or in the change encoding. */
export type ValueForm = 'stored' | 'change';

/** What a table encodes its values with (lmdb's msgpack encoder; none for a table of bytes). */
interface StoredCodec {
  encode(value: unknown): Uint8Array;
  decode(bytes: Uint8Array): unknown;
}

/** The table's codec, if its values are encoded. */
function storedCodecOf(db: Database<unknown, Key>): StoredCodec | undefined {
  return (db as unknown as { encoder?: StoredCodec }).encoder;
}

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

/** A change's value, decoded as `form` says it is encoded (a table of bytes holds its bytes). */
export function decodeValue(db: Database<unknown, Key>, value: Uint8Array, form: ValueForm): unknown {
  if (form === 'change') return changeCodec.unpack(value);
  const codec = storedCodecOf(db);
  return codec ? codec.decode(value) : value;
}

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
  const put = db.put.bind(db) as (...args: unknown[]) => unknown;
  const remove = db.remove.bind(db);
  const codec = storedCodecOf(db);
  db.put = ((key: Key, value: unknown, ...rest: unknown[]) => {
    tap.count++;
    if (!recorded || !tap.current) return put(key, value, ...rest);
    if (!codec) {
      tap.current.push([name, key, Uint8Array.prototype.slice.call(value as Uint8Array)]);
      return put(key, value, ...rest);
    }
    const bytes = codec.encode(value);
    tap.current.push([name, key, bytes]);
    return put(key, asBinary(bytes), ...rest);
  }) as D['put'];
  db.remove = ((key: Key, ...rest: unknown[]) => {
    tap.count++;
    if (recorded) tap.current?.push([name, key]);
    return (remove as (...args: unknown[]) => unknown)(key, ...rest);
  }) as D['remove'];
  return db;
}
