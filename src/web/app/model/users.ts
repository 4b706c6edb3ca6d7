// The organization's users and their presence: register's realm_users and presences (slim, by
// user ID), kept current by realm_user and presence events.
import type { QueuedEvent } from '../types.js';
import type { ChatState, Presence } from './state.js';

type EventOf<T extends QueuedEvent['type']> = Extract<QueuedEvent, { type: T }>;

/** Zulip's clients' thresholds: active within 140 s is online. */
const OFFLINE_AFTER_SECONDS = 140;

export type PresenceStatus = 'active' | 'idle' | 'offline';

export function presenceStatus(presence: Presence | undefined, nowSeconds: number): PresenceStatus {
  if (!presence) return 'offline';
  if (nowSeconds - presence.active_timestamp < OFFLINE_AFTER_SECONDS) return 'active';
  if (nowSeconds - presence.idle_timestamp < OFFLINE_AFTER_SECONDS) return 'idle';
  return 'offline';
}

export function applyRealmUser(state: ChatState, event: EventOf<'realm_user'>): void {
  if (event.op === 'add') return void state.users.set(event.person.user_id, event.person);
  // This client declares user_list_incomplete: someone a guest no longer sees leaves the list, as a
  // fresh register leaves them out (their messages still carry their name).
  if (event.op === 'remove') return void state.users.delete(event.person.user_id);
  const user = state.users.get(event.person.user_id);
  if (!user) return;
  const { user_id: _id, custom_profile_field: _field, new_email, ...changed } = event.person;
  state.users.set(user.user_id, { ...user, ...changed, ...(new_email !== undefined ? { email: new_email } : {}) });
}

export function applyPresence(state: ChatState, event: EventOf<'presence'>): void {
  // This client declares simplified_presence_events: presences by user ID, as register's.
  if ('presences' in event) {
    for (const [userId, presence] of Object.entries(event.presences)) state.presence.set(Number(userId), presence);
    return;
  }
  const { status, timestamp } = event.presence.website;
  const known = state.presence.get(event.user_id) ?? { active_timestamp: 0, idle_timestamp: 0 };
  state.presence.set(event.user_id, { active_timestamp: status === 'active' ? timestamp : known.active_timestamp, idle_timestamp: Math.max(known.idle_timestamp, timestamp) });
}
