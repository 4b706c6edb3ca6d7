// The hot, in-memory state of one realm, loaded from LMDB when the realm actor is activated.
// Only the realm actor changes it, inside the write transaction that persists the change.
import type { Store } from '../store/store.js';
import type { UserRecord } from '../users/records.js';
import type { RealmRecord } from './records.js';

export class RealmState {
  readonly users = new Map<number, UserRecord>();
  private readonly byEmail = new Map<string, UserRecord>();

  constructor(public realm: RealmRecord) {}

  static load(store: Store, realm: RealmRecord): RealmState {
    const state = new RealmState(realm);
    for (const { value } of store.users.getRange({ start: [realm.id], end: [realm.id + 1] })) state.indexUser(value);
    return state;
  }

  /** Adds or replaces a user in the indexes (the caller stores it). */
  indexUser(user: UserRecord): void {
    const previous = this.users.get(user.id);
    if (previous) this.byEmail.delete(previous.email.toLowerCase());
    this.users.set(user.id, user);
    this.byEmail.set(user.email.toLowerCase(), user);
  }

  userByEmail(email: string): UserRecord | undefined {
    return this.byEmail.get(email.toLowerCase());
  }
}
