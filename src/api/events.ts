// Event endpoints: POST /register, GET /events (long-poll), DELETE /events.
import { waitForEvents } from '../events/longPoll.js';
import type { ClientCapabilities } from '../events/queue.js';
import type { QueuedEvent } from '../events/types.js';
import type { RawTerm } from '../messages/narrow.js';
import type { UserRequest } from '../http/route.js';

interface RegisterParams {
  event_types?: string[] | null;
  fetch_event_types?: string[] | null;
  narrow: RawTerm[];
  all_public_streams: boolean;
  client_gravatar: boolean;
  apply_markdown: boolean;
  include_subscribers: boolean | 'true' | 'false' | 'partial';
  lifespan_secs?: number;
  client_capabilities?: ClientCapabilities;
}

export const register = (request: UserRequest, params: RegisterParams) =>
  request.realm.ask('events.register', request.user.userId, {
    eventTypes: params.event_types ?? null,
    fetchEventTypes: params.fetch_event_types ?? null,
    narrow: params.narrow,
    allPublicStreams: params.all_public_streams,
    clientGravatar: params.client_gravatar,
    applyMarkdown: params.apply_markdown,
    // 'partial' (subscribers of small channels only) is answered in full.
    includeSubscribers: params.include_subscribers !== false && params.include_subscribers !== 'false',
    lifespanSecs: params.lifespan_secs ?? null,
    clientCapabilities: params.client_capabilities ?? {},
  });

const wire = ({ id, event }: QueuedEvent) => ({ ...event, id });

export async function getEvents(request: UserRequest, params: { queue_id: string; last_event_id: number; dont_block: boolean }) {
  const queue = request.queues.get(params.queue_id, request.realm.realm.id, request.user.userId);
  queue.acknowledge(params.last_event_id);
  const ready = queue.after(params.last_event_id);
  const events =
    ready.length > 0 || params.dont_block || request.queues.closing
      ? ready
      : await waitForEvents(queue, params.last_event_id, { ms: request.config.heartbeatSeconds * 1000, clock: request.config.clock }, request.signal);
  queue.touch();
  return { events: events.map(wire), queue_id: queue.id };
}

export function deleteQueue(request: UserRequest, params: { queue_id: string }) {
  request.queues.delete(request.queues.get(params.queue_id, request.realm.realm.id, request.user.userId));
  return {};
}

/** A single-use token for opening the event WebSocket from a browser (README, "Event stream"). */
export function issueSocketToken(request: UserRequest) {
  return { token: request.socketTokens.issue(request.realm.realm.id, request.user.userId), expires_in: request.socketTokens.ttlSeconds };
}
