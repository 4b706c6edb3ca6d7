// Loading a realm's in-memory state from LMDB when its actor is activated (or reloaded after a
// failed command): every row of the realm's small tables, in one pass each.
import type { RealmRecord } from '../organization/records.js';
import { RealmState } from '../organization/state.js';
import type { Store } from '../store/store.js';

export function loadRealmState(store: Store, realm: RealmRecord): RealmState {
  const state = new RealmState(realm);
  for (const user of store.users.ofRealm(realm.id)) state.indexUser(user);
  for (const group of store.groups.ofRealm(realm.id)) state.indexGroup(group);
  for (const channel of store.channels.ofRealm(realm.id)) state.indexChannel(channel);
  for (const subscription of store.subscriptions.ofRealm(realm.id)) state.indexSubscription(subscription);
  for (const field of store.profileFields.ofRealm(realm.id)) state.profileFields.set(field.id, field);
  for (const folder of store.folders.ofRealm(realm.id)) state.folders.set(folder.id, folder);
  for (const linkifier of store.linkifiers.ofRealm(realm.id)) state.indexLinkifier(linkifier);
  for (const attachment of store.attachments.ofRealm(realm.id)) state.indexAttachment(attachment);
  for (const emoji of store.realmEmoji.ofRealm(realm.id)) state.realmEmoji.set(emoji.id, emoji);
  for (const { row } of store.scheduledMessages.ofRealm(realm.id)) state.indexScheduled(row);
  return state;
}
