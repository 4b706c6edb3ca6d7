// Client-side helpers for event tests: register, a long-poll reader and a WebSocket reader;
// Zulip's apply_events (how a client keeps its register state current) is in applyEvent.ts.
import { unpack } from 'msgpackr';
import WebSocket from 'ws';
import * as assert from 'uvu/assert';
import type { State } from './applyEvent.js';
import type { ApiClient } from './client.js';

export type Event = { id: number; type: string; op?: string; [field: string]: unknown };
export { applyEvent, comparable, type State } from './applyEvent.js';

export interface Registered {
  queueId: string;
  state: State;
}

/** The capabilities Zulip's current clients declare; a test of an older client passes its own
 * `client_capabilities`. */
export const MODERN_CAPABILITIES = { bulk_message_deletion: true, archived_channels: true, empty_topic_name: true, include_deactivated_groups: true, linkifier_url_template: true, notification_settings_null: true, simplified_presence_events: true, stream_typing_notifications: true };

export async function register(client: ApiClient, params: Record<string, unknown> = {}): Promise<Registered> {
  const response = await client.post('/register', { client_capabilities: MODERN_CAPABILITIES, ...params });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return { queueId: String(response.body.queue_id), state: response.body };
}

/** Long-polls until at least `count` events after `lastEventId` have arrived (bounded by time). */
export async function pollEvents(client: ApiClient, queueId: string, count: number, lastEventId = -1, timeoutMs = 5000): Promise<Event[]> {
  const events: Event[] = [];
  const deadline = Date.now() + timeoutMs;
  while (events.length < count) {
    if (Date.now() > deadline) assert.unreachable(`expected ${count} events, got ${events.length}: ${JSON.stringify(events)}`);
    const response = await client.get('/events', { queue_id: queueId, last_event_id: events.at(-1)?.id ?? lastEventId });
    assert.is(response.status, 200, JSON.stringify(response.body));
    events.push(...(response.body.events as Event[]).filter((event) => event.type !== 'heartbeat'));
  }
  return events;
}

/** A WebSocket client of the event stream that records every frame it receives. */
export class StreamClient {
  readonly frames: Record<string, unknown>[] = [];
  closed: { code: number; reason: string } | undefined;
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      this.frames.push(isBinary ? (unpack(data) as Record<string, unknown>) : (JSON.parse(data.toString()) as Record<string, unknown>));
      this.wake();
    });
    socket.on('close', (code: number, reason: Buffer) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<StreamClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      socket.once('open', () => resolve(new StreamClient(socket)));
      // Handling the refusal is ours, closing its connection included.
      socket.once('unexpected-response', (request, response) => {
        request.destroy();
        reject(new Error(`upgrade refused: ${response.statusCode}`));
      });
      socket.once('error', reject);
    });
  }

  send(frame: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(frame));
  }

  events(): Event[] {
    return this.frames.filter((frame) => !('control' in frame)) as Event[];
  }

  /** Waits (bounded) until the predicate holds over what has been received. */
  async until(predicate: (client: StreamClient) => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) assert.unreachable(`condition not met; frames: ${JSON.stringify(this.frames)} closed: ${JSON.stringify(this.closed)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.socket.close();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
