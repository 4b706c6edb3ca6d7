// Loading a realm's in-memory state from LMDB when its actor is activated (or reloaded after a
// failed command): every row of the realm's small tables, in one pass each.
import type { RealmRecord } from '../organization/records.js';
import { RealmState } from '../organization/state.js';
import type { Store } from '../store/store.js';

export function loadRealmState(store: Store, realm: RealmRecord): RealmState {
  const state = new RealmState(realm);
  const range = { start: [realm.id], end: [realm.id + 1] };
  for (const { value } of store.users.getRange(range)) state.indexUser(value);
  for (const { value } of store.groups.getRange(range)) state.indexGroup(value);
  for (const { value } of store.channels.getRange(range)) state.indexChannel(value);
  for (const { value } of store.subscriptions.getRange(range)) state.indexSubscription(value);
  for (const { value } of store.profileFields.getRange(range)) state.profileFields.set(value.id, value);
  for (const { value } of store.folders.getRange(range)) state.folders.set(value.id, value);
  for (const { value } of store.linkifiers.getRange(range)) state.indexLinkifier(value);
  for (const { value } of store.scheduledMessages.getRange(range)) state.indexScheduled(value);
  return state;
}
