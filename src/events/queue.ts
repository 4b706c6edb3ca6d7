// One event queue (Zulip's "client descriptor"): the events one client registered for, kept until
// the client acknowledges them, delivered to at most one consumer at a time — a parked long-poll
// or an attached WebSocket.
import type { Capability } from './capabilities.js';
import type { Clock } from '../clock.js';
import { matchesNarrow, type ResolvedTerm } from '../messages/narrow.js';
import type { Emitted, QueuedEvent, ZulipEvent } from './types.js';

/** Who reads a queue right now. */
export interface Consumer {
  /** New events are in the queue. */
  notify(queue: EventQueue): void;
  /** Another consumer took the queue over, or the queue is gone. */
  detach(reason: DetachReason): void;
}

/** Register names state by fetch type; a client that lists a fetch type in `event_types` wants the
 * events that keep that state current, whose type may be named otherwise. */
const eventTypesOfFetchType = new Map<string, string[]>([
  ['realm_user_groups', ['user_group']],
  ['channel_folders', ['channel_folder']],
  ['starred_messages', ['update_message_flags']],
  ['recent_private_conversations', ['message']],
  ['video_calls', ['has_provider_token']],
]);

/** Settings events in their pre-`user_settings` shapes. */
const legacySettingsEvents = new Set(['update_display_settings', 'update_global_notifications']);

export type DetachReason = 'replaced' | 'deleted' | 'shutdown';

/** What a queue is made of; all of it survives a graceful restart. */
export interface QueueSnapshot {
  /** The newest event ID the queue has seen (register's last_event_id before any event). */
  lastEventId: number;
  id: string;
  realmId: number;
  userId: number;
  eventTypes: string[] | null;
  allPublicStreams: boolean;
  /** Message events must match this narrow (resolved when the queue was registered). */
  narrow: ResolvedTerm[];
  clientGravatar: boolean;
  applyMarkdown: boolean;
  /** The client declared `user_settings_object`: settings changes reach it only as `user_settings`
   * events, not also in the legacy shapes (absent in queues saved before it existed). */
  userSettingsObject?: boolean;
  /** The capabilities the client declared that change its events (absent in queues saved before
   * they were kept: none). */
  capabilities?: Capability[];
  /** How long the queue lives without a consumer (Zulip: 10 minutes, `lifespan_secs` up to 7 days). */
  lifespanMs: number;
  events: QueuedEvent[];
}

/** Hands out event IDs. They come from one server-wide sequence, so they increase in every
 * queue (not consecutively, which Zulip allows) and one emission has the same ID in every queue
 * that gets it: its frame is built once for all of them. */
export type EventIds = () => number;

/** Queues with new events whose consumers are to hear of it. Consumers are told on the next turn of
 * the event loop, all at once: a write's answer goes out first, and the fan-out to every socket and
 * parked long-poll follows instead of holding the answer back. */
const waking = new Set<EventQueue>();

function wake(queue: EventQueue): void {
  if (waking.size === 0) {
    setImmediate(() => {
      const queues = [...waking];
      waking.clear();
      for (const woken of queues) woken.consumer?.notify(woken);
    });
  }
  waking.add(queue);
}

export class EventQueue {
  private events: QueuedEvent[];
  private newestId: number;
  private readonly eventTypes: Set<string> | null;
  consumer: Consumer | null = null;
  /** The realm position the queue opened at (EventQueues.begin; -1 for a queue restored after a
   * restart): it takes only later emissions. A field, not a map beside the queues: it is read for
   * every queue an emission reaches. */
  openedAt = -1;
  /** When a consumer last read or let go of the queue (ms); idle time counts from here. */
  private lastActive: number;

  constructor(
    readonly settings: Omit<QueueSnapshot, 'events' | 'lastEventId'>,
    private readonly nextId: EventIds,
    private readonly clock: Clock,
    lastEventId: number,
    events: QueuedEvent[] = [],
  ) {
    this.lastActive = clock.now();
    this.events = events;
    this.newestId = lastEventId;
    this.eventTypes = settings.eventTypes === null ? null : new Set(settings.eventTypes.flatMap((name) => [name, ...(eventTypesOfFetchType.get(name) ?? [])]));
  }

  get id(): string {
    return this.settings.id;
  }

  get userId(): number {
    return this.settings.userId;
  }

  /** The ID of the newest event, or the sequence's position when the queue was registered. */
  get lastEventId(): number {
    return this.newestId;
  }

  /** Whether the client declared a capability at register. */
  declares(capability: Capability): boolean {
    return this.settings.capabilities?.includes(capability) === true;
  }

  wants(event: ZulipEvent, message?: Emitted['message']): boolean {
    // Heartbeats and restarts go to every queue, as in Zulip.
    if (event.type === 'heartbeat' || event.type === 'restart') return true;
    if (this.eventTypes !== null && !this.eventTypes.has(event.type)) return false;
    if (this.settings.userSettingsObject && legacySettingsEvents.has(event.type)) return false;
    return message === undefined || matchesNarrow(this.settings.narrow, message.record, message.flags);
  }

  /** Adds an event of this queue alone (a heartbeat). */
  push(event: ZulipEvent): void {
    this.deliver({ id: this.nextId(), event });
  }

  /** Adds an event that other queues may share (same ID, same object). Its consumer hears of it
   * on the next turn of the event loop (see wake). */
  deliver(queued: QueuedEvent): void {
    this.events.push(queued);
    this.newestId = queued.id;
    if (this.consumer) wake(this);
  }

  /** Drops every event up to and including `lastEventId`: the client has them. */
  acknowledge(lastEventId: number): void {
    const keep = this.firstAfter(lastEventId);
    if (keep > 0) this.events = this.events.slice(keep);
  }

  /** Events after `lastEventId`, oldest first. */
  after(lastEventId: number): QueuedEvent[] {
    return this.events.slice(this.firstAfter(lastEventId));
  }

  /** The index of the first event after `lastEventId` (IDs increase along the queue): a search, as
   * a reader that never acknowledges leaves thousands of events in its queue. */
  private firstAfter(lastEventId: number): number {
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.events[middle]!.id <= lastEventId) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  attach(consumer: Consumer): void {
    if (this.consumer && this.consumer !== consumer) this.consumer.detach('replaced');
    this.consumer = consumer;
    this.touch();
  }

  release(consumer: Consumer): void {
    if (this.consumer !== consumer) return;
    this.consumer = null;
    this.touch();
  }

  /** A client read the queue: its idle time starts again. */
  touch(): void {
    this.lastActive = this.clock.now();
  }

  /** Collectable: no consumer, and idle for longer than its lifespan. */
  expired(now: number): boolean {
    return this.consumer === null && now - this.lastActive > this.settings.lifespanMs;
  }

  snapshot(): QueueSnapshot {
    return { ...this.settings, events: this.events, lastEventId: this.newestId };
  }
}
