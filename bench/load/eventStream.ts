// One user's event stream: a registered queue read over Parley's WebSocket stream where the server
// offers it, else by long-polling GET /events as Zulip's clients do. A dropped connection is
// resumed from the last event ID processed (nothing is handed on twice); a queue the server no
// longer has is registered again (what was in it is lost, and shows as lost deliveries).
import WebSocket from 'ws';
import { Api, NetworkFailure } from './api.js';

export type Transport = 'websocket' | 'long-poll';
/** What a run asks for: the WebSocket stream where offered ('auto'), or one transport only. */
export type TransportChoice = Transport | 'auto';
export interface StreamEvent {
  id: number;
  type: string;
  [field: string]: unknown;
}

export interface StreamCounters {
  reconnects: number;
  reregisters: number;
}

/** Close codes of Parley's stream after which the queue is gone (register again). */
const QUEUE_GONE = 4004;
const RETRY_MS = 250;
/** A long-poll answers within about a minute (a heartbeat at worst); past this it is retried. */
const POLL_TIMEOUT_MS = 90_000;
const HANDSHAKE_TIMEOUT_MS = 10_000;

export class EventStream {
  private queueId = '';
  private lastEventId = -1;
  private socket: WebSocket | undefined;
  private poll: AbortController | undefined;
  private stopped = false;
  transport: Transport = 'websocket';

  constructor(
    private readonly api: Api,
    private readonly onEvent: (event: StreamEvent) => void,
    private readonly counters: StreamCounters,
    private readonly eventTypes: readonly string[],
    private readonly choice: TransportChoice = 'auto',
  ) {}

  private async register(): Promise<void> {
    const body = await this.api.ok('POST', '/register', { event_types: this.eventTypes, fetch_event_types: [], apply_markdown: false });
    this.queueId = String(body.queue_id);
    this.lastEventId = Number(body.last_event_id ?? -1);
  }

  /** Registers and connects; resolves once events flow (the WebSocket attached, or the first poll
   * sent). A server without the WebSocket stream is read by long-polling. */
  async open(): Promise<void> {
    await this.register();
    try {
      if (this.choice === 'long-poll') throw new Refused(0);
      await this.connect();
    } catch (error) {
      if (!(error instanceof Refused) || this.choice === 'websocket') throw error;
      this.transport = 'long-poll';
      void this.pollLoop();
    }
  }

  private handle(event: StreamEvent): void {
    // A resumed stream starts after the last ID; an event at or before it was handled already.
    if (event.id <= this.lastEventId) return;
    this.lastEventId = event.id;
    if (event.type !== 'heartbeat') this.onEvent(event);
  }

  private connect(): Promise<void> {
    const url = `${this.api.baseUrl.replace(/^http/, 'ws')}/api/v1/events/socket`;
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers: this.api.authorization, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
      this.socket = socket;
      let attached = false;
      socket.once('unexpected-response', (request, response) => {
        request.destroy();
        reject(new Refused(response.statusCode ?? 0));
      });
      socket.on('error', (error) => {
        if (!attached) reject(error);
      });
      socket.on('open', () => socket.send(JSON.stringify({ op: 'attach', queue_id: this.queueId, last_event_id: this.lastEventId })));
      socket.on('message', (data: Buffer) => {
        const frame = JSON.parse(data.toString()) as Record<string, unknown>;
        if ('control' in frame) {
          if (frame.control === 'attached' && !attached) {
            attached = true;
            resolve();
          }
          return;
        }
        this.handle(frame as StreamEvent);
        socket.send(JSON.stringify({ op: 'ack', last_event_id: this.lastEventId }));
      });
      socket.on('close', (code) => {
        if (!attached) reject(new Error(`event stream closed before attaching (${code})`));
        else if (!this.stopped) void this.reconnect(code === QUEUE_GONE);
      });
    });
  }

  private async reconnect(queueGone: boolean): Promise<void> {
    this.counters.reconnects++;
    for (let again = queueGone; !this.stopped; ) {
      try {
        if (again) {
          this.counters.reregisters++;
          await this.register();
        }
        await this.connect();
        return;
      } catch (error) {
        // The queue may have gone while we were away: the next attempt registers again.
        again = error instanceof Error && /4004|BAD_EVENT_QUEUE_ID/.test(error.message);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  private async pollLoop(): Promise<void> {
    while (!this.stopped) {
      this.poll = new AbortController();
      try {
        const answer = await this.api.call('GET', '/events', { queue_id: this.queueId, last_event_id: this.lastEventId }, AbortSignal.any([this.poll.signal, AbortSignal.timeout(POLL_TIMEOUT_MS)]));
        if (answer.status === 200) {
          for (const event of (answer.body.events as StreamEvent[]) ?? []) this.handle(event);
          continue;
        }
        if (answer.body.code === 'BAD_EVENT_QUEUE_ID') {
          this.counters.reregisters++;
          await this.register();
          continue;
        }
      } catch (error) {
        if (this.stopped) return;
        if (error instanceof NetworkFailure) this.counters.reconnects++;
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  /** Stops reading and deletes the queue (best effort). */
  async close(): Promise<void> {
    this.stopped = true;
    this.poll?.abort();
    this.socket?.close();
    await this.api.call('DELETE', '/events', { queue_id: this.queueId }).catch(() => undefined);
  }
}

/** The server answered the upgrade with an HTTP status: it has no WebSocket stream for us. */
class Refused extends Error {
  constructor(status: number) {
    super(`WebSocket upgrade refused: ${status}`);
  }
}
