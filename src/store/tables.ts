// Typed tables over LMDB sub-databases: each knows its key layout (store.ts lists them all), so
// no command builds a key. Realm tables hold rows that carry their realm and ID; owned tables hold
// rows of one user of a realm, keyed by the owner and the row's own ID.
import type { Database, Key, RangeOptions } from 'lmdb';

type KeyPart = number | string;

/** Whether a table holds any key (in a range): one key read. lmdb-js's getKeysCount counts every
 * key of the range even when given a limit. */
export function hasKeys(db: Database<unknown, Key>, range: RangeOptions = {}): boolean {
  return [...db.getKeys({ ...range, limit: 1 })].length > 0;
}

/** Rows of a realm with a key of their own: [realmId, …keyOf(row)]. */
export class RealmTable<T extends { realmId: number }> {
  constructor(
    private readonly db: Database<T, KeyPart[]>,
    private readonly keyOf: (row: T) => KeyPart[],
  ) {}

  put(row: T): void {
    this.db.put([row.realmId, ...this.keyOf(row)], row);
  }

  remove(row: T): void {
    this.db.remove([row.realmId, ...this.keyOf(row)]);
  }

  get(realmId: number, ...key: KeyPart[]): T | undefined {
    return this.db.get([realmId, ...key]);
  }

  *ofRealm(realmId: number): Generator<T> {
    for (const { value } of this.db.getRange({ start: [realmId], end: [realmId + 1] })) yield value;
  }

  /** The realms that have rows. */
  realmIds(): Set<number> {
    return realmIdsOf(this.db);
  }
}

/** The realms a table has rows of: one key read per realm, each seeking past the realm before
 * (start-up asks this of whole tables). */
function realmIdsOf(db: Database<unknown, KeyPart[]>): Set<number> {
  const ids = new Set<number>();
  for (let next = 0; ; ) {
    const [key] = db.getKeys({ start: [next], limit: 1 });
    if (key === undefined) return ids;
    const realmId = key[0] as number;
    ids.add(realmId);
    next = realmId + 1;
  }
}

/** Whose rows an owned table holds. */
export interface Owner {
  realmId: number;
  userId: number;
}

/** Rows of one user of a realm: [realmId, userId, …idOf(row)]. */
export class OwnedTable<T> {
  constructor(
    private readonly db: Database<T, KeyPart[]>,
    private readonly idOf: (row: T) => KeyPart[],
  ) {}

  put(owner: Owner, row: T): void {
    this.db.put([owner.realmId, owner.userId, ...this.idOf(row)], row);
  }

  remove(owner: Owner, ...id: KeyPart[]): void {
    this.db.remove([owner.realmId, owner.userId, ...id]);
  }

  get(owner: Owner, ...id: KeyPart[]): T | undefined {
    return this.db.get([owner.realmId, owner.userId, ...id]);
  }

  /** Whether the owner has at least one row (one key read). */
  hasRows(owner: Owner): boolean {
    return hasKeys(this.db, { start: [owner.realmId, owner.userId], end: [owner.realmId, owner.userId + 1] });
  }

  /** The owner's rows in key order. */
  ofOwner(owner: Owner): T[] {
    return [...this.db.getRange({ start: [owner.realmId, owner.userId], end: [owner.realmId, owner.userId + 1] })].map(({ value }) => value);
  }

  /** Every row of a realm, with its owner. */
  *ofRealm(realmId: number): Generator<{ userId: number; row: T }> {
    for (const { key, value } of this.db.getRange({ start: [realmId], end: [realmId + 1] })) yield { userId: key[1] as number, row: value };
  }

  /** The realms that have rows. */
  realmIds(): Set<number> {
    return realmIdsOf(this.db);
  }
}
