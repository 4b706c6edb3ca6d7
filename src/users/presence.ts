// Presence (Zulip's UserPresence): when each user was last active and last connected, as clients
// report it every minute. A hot path, so it lives in memory only (one table per realm, owned by
// the realm actor) and is saved coarsely; the rules are Zulip's zerver/actions/presence.py and
// zerver/lib/presence.py.
import type { UserRecord } from './records.js';

/** Zulip's presence settings (seconds). */
export const presenceTiming = {
  /** How often clients report (register's server_presence_ping_interval_seconds). */
  pingIntervalSeconds: 60,
  /** Without a report for this long a user is offline (server_presence_offline_threshold_seconds). */
  offlineThresholdSeconds: 140,
  /** A report changes a stored time only when that time is older than this. */
  updateMinFreqSeconds: 55,
  /** In the legacy format a user is "active" when last active this close to last connected. */
  legacyActivityOffsetSeconds: 70,
  /** Beyond this many active users, coming online is not announced (only polled). */
  eventUserLimit: 100,
  /** How far back presence is fetched when the client does not say. */
  defaultHistoryDays: 14,
} as const;

export interface PresenceRecord {
  /** UNIX seconds; null when the user was only ever idle. */
  lastActive: number | null;
  lastConnected: number;
  /** The realm's presence sequence number of this record's last change. */
  lastUpdateId: number;
}

/** What the table saves and loads: the realm's sequence and every user's record. */
export interface PresenceSnapshot {
  lastUpdateId: number;
  users: [userId: number, record: PresenceRecord][];
}

/** What a report did: whether the record was new, and whether the user came (back) online. */
export interface PresenceChange {
  record: PresenceRecord;
  created: boolean;
  becameOnline: boolean;
}

export type ModernPresence = { active_timestamp: number; idle_timestamp: number };
export type LegacyClientPresence = { client: 'website'; status: 'active' | 'idle'; timestamp: number; pushable: false };
export type LegacyPresence = { aggregated: Omit<LegacyClientPresence, 'pushable'>; website: LegacyClientPresence };

/** Presence as read commands see it. */
export interface PresenceView {
  get(userId: number): PresenceRecord | undefined;
  entries(): IterableIterator<[number, PresenceRecord]>;
}

export class PresenceTable implements PresenceView {
  private readonly byUser = new Map<number, PresenceRecord>();
  private lastUpdateId = 0;
  /** Changed since the last snapshot (saving an unchanged table is skipped). */
  private changed = false;
  /** With `tracked`, the records changed since `takeRecent` (null: forgotten), to be kept elsewhere. */
  private readonly recent: Map<number, PresenceRecord | null> | undefined;

  constructor(saved?: PresenceSnapshot, tracked = false) {
    if (tracked) this.recent = new Map();
    if (!saved) return;
    this.lastUpdateId = saved.lastUpdateId;
    for (const [userId, record] of saved.users) this.byUser.set(userId, record);
  }

  get(userId: number): PresenceRecord | undefined {
    return this.byUser.get(userId);
  }

  entries(): IterableIterator<[number, PresenceRecord]> {
    return this.byUser.entries();
  }

  /** Zulip's do_update_user_presence: a report of `active` or idle at `now`. */
  report(userId: number, now: number, active: boolean): PresenceChange {
    const before = this.byUser.get(userId);
    if (!before) {
      const record = { lastActive: active ? now : null, lastConnected: now, lastUpdateId: this.nextUpdateId() };
      this.set(userId, record);
      return { record, created: true, becameOnline: active };
    }
    // Never active, or never connected: treated as long ago (Zulip: one day).
    const sinceActive = before.lastActive === null ? 86_400 : now - before.lastActive;
    const sinceConnected = now - before.lastConnected;
    const { offlineThresholdSeconds, pingIntervalSeconds, updateMinFreqSeconds } = presenceTiming;
    const becameOnline = active && sinceActive > offlineThresholdSeconds - pingIntervalSeconds - 10;
    let { lastActive, lastConnected } = before;
    if (sinceConnected > updateMinFreqSeconds) lastConnected = now;
    if (active && sinceActive > updateMinFreqSeconds) {
      lastActive = now;
      if (now > lastConnected) lastConnected = now;
    }
    if (lastActive === before.lastActive && lastConnected === before.lastConnected) return { record: before, created: false, becameOnline };
    const record = { lastActive, lastConnected, lastUpdateId: this.nextUpdateId() };
    this.set(userId, record);
    return { record, created: false, becameOnline };
  }

  /** Forgets a user's record (turning presence_enabled off starts them afresh, as in Zulip). */
  forget(userId: number): void {
    if (!this.byUser.delete(userId)) return;
    this.changed = true;
    this.recent?.set(userId, null);
  }

  private set(userId: number, record: PresenceRecord): void {
    this.byUser.set(userId, record);
    this.recent?.set(userId, record);
  }

  /** The records changed since the last call (tracked tables only; else none). */
  takeRecent(): [userId: number, record: PresenceRecord | null][] {
    if (!this.recent || this.recent.size === 0) return [];
    const recent = [...this.recent];
    this.recent.clear();
    return recent;
  }

  get hasChanges(): boolean {
    return this.changed;
  }

  /** The records to save, or undefined when nothing changed since the last call. */
  takeSnapshot(): PresenceSnapshot | undefined {
    if (!this.changed) return undefined;
    this.changed = false;
    return { lastUpdateId: this.lastUpdateId, users: [...this.byUser] };
  }

  private nextUpdateId(): number {
    this.changed = true;
    return ++this.lastUpdateId;
  }
}

/** Zulip's default for times a user never reported: when they joined. */
const timesOf = (record: PresenceRecord, user: UserRecord) => ({ active: record.lastActive ?? user.firstLogin ?? user.dateCreated, connected: record.lastConnected });

export function modernPresence(record: PresenceRecord, user: UserRecord): ModernPresence {
  const { active, connected } = timesOf(record, user);
  return { active_timestamp: active, idle_timestamp: connected };
}

/** The legacy format's one client, "website": active when last active close to last connected. */
export function legacyClientPresence(record: PresenceRecord, user: UserRecord): LegacyClientPresence {
  const { active, connected } = timesOf(record, user);
  const isActive = active + presenceTiming.legacyActivityOffsetSeconds >= connected;
  return { client: 'website', status: isActive ? 'active' : 'idle', timestamp: isActive ? active : connected, pushable: false };
}

export function legacyPresence(record: PresenceRecord, user: UserRecord): LegacyPresence {
  const website = legacyClientPresence(record, user);
  return { aggregated: { client: website.client, status: website.status, timestamp: website.timestamp }, website };
}
