// One event queue per tab, read over Parley's WebSocket stream: a single-use socket token opens
// the socket, `attach` resumes after the last event applied (so a reconnect after a dropped
// connection or a server restart misses nothing and repeats nothing), `ack` lets the server drop
// what was applied. When the socket cannot be opened, the queue is long-polled instead.
import { ApiError, type Api } from './api.js';
import type { QueuedEvent } from './types.js';

export type StreamStatus = 'connecting' | 'live' | 'polling';

export interface StreamHandlers {
  /** Events in order, each applied once. */
  onEvents(events: QueuedEvent[]): void;
  /** The queue is gone (expired, or the server lost it): register again. */
  onQueueLost(): void;
  onStatus(status: StreamStatus): void;
}

/** Close code: the queue does not exist or is not this user's. */
const QUEUE_GONE = 4004;
/** Sockets that failed to open in a row before the stream falls back to long-polling. */
const SOCKET_ATTEMPTS = 3;
const MAX_BACKOFF_MS = 5_000;
/** How often applied events are acknowledged at most. */
const ACK_EVERY_MS = 1_000;

export class EventStream {
  private socket: WebSocket | undefined;
  private stopped = false;
  private failures = 0;
  private acked: number;
  private ackTimer: ReturnType<typeof setTimeout> | undefined;
  private poll: AbortController | undefined;

  constructor(
    private readonly api: Api,
    private readonly queueId: string,
    private lastEventId: number,
    private readonly handlers: StreamHandlers,
  ) {
    this.acked = lastEventId;
  }

  start(): void {
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.socket?.close(1000);
    this.poll?.abort();
    clearTimeout(this.ackTimer);
  }

  private deliver(events: QueuedEvent[]): void {
    const fresh = events.filter((event) => event.id > this.lastEventId);
    if (fresh.length === 0) return;
    this.lastEventId = fresh[fresh.length - 1]!.id;
    this.handlers.onEvents(fresh.filter((event) => event.type !== 'heartbeat'));
  }

  private backoff(): number {
    return Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(this.failures, 5));
  }

  private retry(then: () => void): void {
    this.failures++;
    if (!this.stopped) setTimeout(then, this.backoff());
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.handlers.onStatus('connecting');
    let token: string;
    try {
      token = (await this.api.post<{ token: string }>('/events/socket_token')).token;
    } catch (error) {
      // The server is away (restarting): try again; a refusal means the key no longer works.
      if (error instanceof ApiError && error.status === 401) return this.handlers.onQueueLost();
      return this.retry(() => void this.connect());
    }
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1/events/socket?token=${encodeURIComponent(token)}`;
    let opened = false;
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.onopen = () => {
      opened = true;
      socket.send(JSON.stringify({ op: 'attach', queue_id: this.queueId, last_event_id: this.lastEventId }));
    };
    socket.onmessage = (message) => {
      const frame = JSON.parse(String(message.data)) as QueuedEvent | { control: string };
      if ('control' in frame) {
        if (frame.control === 'attached') {
          this.failures = 0;
          this.handlers.onStatus('live');
        }
        return;
      }
      this.deliver([frame]);
      this.scheduleAck();
    };
    socket.onclose = (close) => {
      if (this.socket !== socket || this.stopped) return;
      this.socket = undefined;
      if (close.code === QUEUE_GONE) return this.handlers.onQueueLost();
      if (!opened && this.failures + 1 >= SOCKET_ATTEMPTS) return void this.longPoll();
      this.retry(() => void this.connect());
    };
  }

  private scheduleAck(): void {
    if (this.ackTimer !== undefined) return;
    this.ackTimer = setTimeout(() => {
      this.ackTimer = undefined;
      if (this.socket?.readyState === WebSocket.OPEN && this.lastEventId > this.acked) {
        this.acked = this.lastEventId;
        this.socket.send(JSON.stringify({ op: 'ack', last_event_id: this.acked }));
      }
    }, ACK_EVERY_MS);
  }

  /** Zulip's way: GET /events waits for the next events (or a heartbeat) and acknowledges the last. */
  private async longPoll(): Promise<void> {
    this.handlers.onStatus('polling');
    while (!this.stopped) {
      this.poll = new AbortController();
      try {
        const answer = await this.api.get<{ events: QueuedEvent[] }>('/events', { queue_id: this.queueId, last_event_id: this.lastEventId }, this.poll.signal);
        this.failures = 0;
        this.deliver(answer.events);
      } catch (error) {
        if (this.stopped) return;
        if (error instanceof ApiError && (error.code === 'BAD_EVENT_QUEUE_ID' || error.status === 401)) return this.handlers.onQueueLost();
        this.failures++;
        await new Promise((resolve) => setTimeout(resolve, this.backoff()));
      }
    }
  }
}
