// The signed-in client: registers a queue, keeps the state current from its events, fetches
// message windows as narrows are opened, and sends what the user does. Views subscribe to changes
// and read the state; one change notification per batch of events.
import { Api, ApiError, type Credentials } from './api.js';
import { applyEvent } from './model/apply.js';
import { addFetched } from './model/messages.js';
import { setTopics } from './model/channels.js';
import { FETCH_EVENT_TYPES, stateFromRegister, type ChatState, type RegisterAnswer } from './model/state.js';
import { apiNarrow, narrowHash, type Narrow } from './narrow.js';
import { EventStream, type StreamStatus } from './stream.js';
import type { Message } from './types.js';

/** Messages fetched at a time. */
export const BATCH = 100;
/** How long seen messages wait to be marked read together. */
const READ_BATCH_MS = 300;
/** How long to wait before registering again while the server is away. */
const REGISTER_RETRY_MS = 2_000;
/** Zulip's presence ping interval. */
const PRESENCE_EVERY_MS = 60_000;
/** A typing notice is renewed this often while the user types (Zulip's 10 s). */
const TYPING_RENEW_MS = 10_000;

/** Where a message is sent: a channel's topic, or a direct conversation. */
export type Destination = { kind: 'channel'; channelId: number; topic: string } | { kind: 'dm'; userIds: number[] };

export class Chat {
  readonly api: Api;
  state!: ChatState;
  status: StreamStatus = 'connecting';
  /** Why the session ended (the key stopped working), once it has. */
  ended: string | null = null;
  private stopped = false;
  /** Counts registrations: a new one starts from a fresh state, whose windows are fetched anew. */
  generation = 0;
  private stream: EventStream | undefined;
  private listeners = new Set<() => void>();
  private seen = new Set<number>();
  private readTimer: ReturnType<typeof setTimeout> | undefined;
  private presenceTimer: ReturnType<typeof setInterval> | undefined;
  private typingSent: { to: string; at: number } | undefined;
  private loading = new Set<string>();

  constructor(credentials: Credentials) {
    this.api = new Api(credentials);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Registers a queue and starts reading it; again whenever the queue is lost. */
  async start(): Promise<void> {
    const register = await this.api.post<RegisterAnswer>('/register', {
      fetch_event_types: FETCH_EVENT_TYPES,
      apply_markdown: true,
      client_gravatar: false,
      slim_presence: true,
      client_capabilities: { bulk_message_deletion: true, archived_channels: true, include_deactivated_groups: true, linkifier_url_template: true, notification_settings_null: true, simplified_presence_events: true, stream_typing_notifications: true, user_list_incomplete: true },
    });
    this.stream?.stop();
    this.state = stateFromRegister(register);
    this.generation++;
    this.stream = new EventStream(this.api, register.queue_id, register.last_event_id, {
      onEvents: (events) => {
        const now = Date.now();
        for (const event of events) applyEvent(this.state, event, now);
        this.changed();
      },
      onQueueLost: () => void this.registerAgain(),
      onStatus: (status) => {
        this.status = status;
        this.changed();
      },
    });
    this.stream.start();
    if (this.presenceTimer === undefined) {
      void this.reportPresence();
      this.presenceTimer = setInterval(() => void this.reportPresence(), PRESENCE_EVERY_MS);
    }
  }

  /** The queue is gone: a fresh registration, retried while the server is away; a key that no
   * longer works ends the session. */
  private async registerAgain(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.start();
        return this.changed();
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) {
          this.ended = error.message;
          return this.changed();
        }
        await new Promise((resolve) => setTimeout(resolve, REGISTER_RETRY_MS));
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.stream?.stop();
    clearInterval(this.presenceTimer);
    clearTimeout(this.readTimer);
  }

  private async reportPresence(): Promise<void> {
    // Zulip's clients: active while the window has the focus, idle otherwise.
    const status = document.hasFocus() ? 'active' : 'idle';
    const answer = await this.api.post<{ presences?: Record<string, { active_timestamp: number; idle_timestamp: number }> }>('/users/me/presence', { status, slim_presence: true }).catch(() => undefined);
    if (!answer?.presences) return;
    for (const [id, presence] of Object.entries(answer.presences)) this.state.presence.set(Number(id), presence);
    this.changed();
  }

  isLoading(narrow: Narrow): boolean {
    return this.loading.has(narrowHash(narrow));
  }

  /** The newest messages of a narrow, unless its window is already here. */
  async open(narrow: Narrow): Promise<void> {
    const window = this.state.windows.get(narrowHash(narrow));
    if (window && !window.stale) return;
    await this.fetch(narrow, 'newest', BATCH, 0);
  }

  /** The messages before the oldest one shown (scrolling back). */
  async loadOlder(narrow: Narrow): Promise<void> {
    const window = this.state.windows.get(narrowHash(narrow));
    if (!window || window.foundOldest || window.ids.length === 0) return;
    await this.fetch(narrow, window.ids[0]!, BATCH, 0);
  }

  private async fetch(narrow: Narrow, anchor: number | 'newest', before: number, after: number): Promise<void> {
    const key = narrowHash(narrow);
    if (this.loading.has(key)) return;
    this.loading.add(key);
    this.changed();
    try {
      const answer = await this.api.get<{ messages: Message[]; found_oldest: boolean; found_newest: boolean }>('/messages', {
        anchor,
        num_before: before,
        num_after: after,
        include_anchor: anchor === 'newest',
        narrow: apiNarrow(narrow),
        apply_markdown: true,
        client_gravatar: false,
      });
      addFetched(this.state, narrow, answer.messages, { oldest: answer.found_oldest, newest: answer.found_newest });
    } finally {
      this.loading.delete(key);
      this.changed();
    }
  }

  async loadTopics(channelId: number): Promise<void> {
    if (this.state.topics.has(channelId)) return;
    const answer = await this.api.get<{ topics: { name: string; max_id: number }[] }>(`/users/me/${channelId}/topics`);
    setTopics(this.state, channelId, answer.topics);
    this.changed();
  }

  async send(to: Destination, content: string): Promise<void> {
    this.typing(to, false);
    if (to.kind === 'channel') await this.api.post('/messages', { type: 'stream', to: to.channelId, topic: to.topic, content, read_by_sender: true });
    else await this.api.post('/messages', { type: 'direct', to: to.userIds, content, read_by_sender: true });
  }

  /** Tells the others the user is typing (renewed every 10 s while they type) or stopped. */
  typing(to: Destination, typing: boolean): void {
    const key = to.kind === 'channel' ? `${to.channelId}:${to.topic}` : to.userIds.join(',');
    const now = Date.now();
    if (typing && this.typingSent?.to === key && now - this.typingSent.at < TYPING_RENEW_MS) return;
    if (!typing && this.typingSent?.to !== key) return;
    this.typingSent = typing ? { to: key, at: now } : undefined;
    const where = to.kind === 'channel' ? { type: 'stream', stream_id: to.channelId, topic: to.topic } : { type: 'direct', to: to.userIds };
    void this.api.post('/typing', { op: typing ? 'start' : 'stop', ...where }).catch(() => undefined);
  }

  /** A message the user has seen: marked read with the others seen within a moment. */
  seenMessage(id: number): void {
    if (!this.state.unread.byId.has(id) || this.seen.has(id)) return;
    this.seen.add(id);
    this.readTimer ??= setTimeout(() => void this.flushRead(), READ_BATCH_MS);
  }

  private async flushRead(): Promise<void> {
    this.readTimer = undefined;
    const ids = [...this.seen].filter((id) => this.state.unread.byId.has(id));
    if (ids.length === 0) return;
    // The read event removes them from the unread counts; a failure lets them be seen again.
    await this.api.post('/messages/flags', { messages: ids, op: 'add', flag: 'read' }).catch(() => ids.forEach((id) => this.seen.delete(id)));
  }

  star(message: Message): Promise<unknown> {
    return this.api.post('/messages/flags', { messages: [message.id], op: message.flags.includes('starred') ? 'remove' : 'add', flag: 'starred' });
  }

  async rawContent(id: number): Promise<string> {
    return (await this.api.get<{ message: { content: string } }>(`/messages/${id}`, { apply_markdown: false })).message.content;
  }

  edit(id: number, content: string): Promise<unknown> {
    return this.api.patch(`/messages/${id}`, { content });
  }

  remove(id: number): Promise<unknown> {
    return this.api.delete(`/messages/${id}`);
  }

  /** Adds the user's reaction, or takes it back. */
  react(message: Message, emoji: { name: string; code: string; type: string }): Promise<unknown> {
    const mine = message.reactions.some((reaction) => reaction.user_id === this.state.meId && reaction.emoji_code === emoji.code && reaction.reaction_type === emoji.type);
    const params = { emoji_name: emoji.name, emoji_code: emoji.code, reaction_type: emoji.type };
    return mine ? this.api.delete(`/messages/${message.id}/reactions`, params) : this.api.post(`/messages/${message.id}/reactions`, params);
  }

  /** Adds an event to a message's poll or to-do list (a vote, an option, a task, a tick). */
  submit(message: Message, event: Record<string, unknown>): Promise<unknown> {
    return this.api.post('/submessage', { message_id: message.id, msg_type: 'widget', content: JSON.stringify(event) });
  }
}
