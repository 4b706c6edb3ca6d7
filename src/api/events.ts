// Event endpoints: POST /register, GET /events (long-poll), DELETE /events.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import { waitForEvents } from '../events/longPoll.js';
import { eventJson } from '../events/types.js';
import { JsonArray, JsonFields, membersOf } from '../realm/jsonFields.js';
import type { UserRequest } from '../http/route.js';

/** Registers a queue: the realm's state, and a queue that starts right after it. */
export async function register(request: UserRequest, params: Params<typeof schemas.registerQueue>) {
  const registration = request.queues.begin(request.realm.realm.id, request.user.userId, params.all_public_streams);
  try {
    const { state, queue: settings, position, epoch } = await request.realm.ask('events.register', request.user.userId, registerInput(params));
    const queue = registration.open(settings, position, epoch);
    return new JsonFields(`"queue_id":${JSON.stringify(queue.id)},"last_event_id":${queue.lastEventId},"server_generation":${request.queues.serverGeneration},`, ...state);
  } finally {
    registration.end();
  }
}

const registerInput = (params: Params<typeof schemas.registerQueue>) => ({
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
    slimPresence: params.slim_presence,
    presenceHistoryLimitDays: params.presence_history_limit_days ?? null,
});

export async function getEvents(request: UserRequest, params: Params<typeof schemas.getEvents>) {
  const queue = request.queues.get(params.queue_id, request.realm.realm.id, request.user.userId);
  queue.acknowledge(params.last_event_id);
  const ready = queue.after(params.last_event_id);
  const events =
    ready.length > 0 || params.dont_block || request.queues.closing
      ? ready
      : await waitForEvents(queue, params.last_event_id, { ms: request.config.heartbeatSeconds * 1000, clock: request.config.clock }, request.signal);
  queue.touch();
  // Each event's JSON is made once, whatever the number of queues that get it.
  return new JsonFields(...membersOf({ events: new JsonArray(events.map(eventJson)), queue_id: queue.id }));
}

export function deleteQueue(request: UserRequest, params: Params<typeof schemas.deleteQueue>) {
  request.queues.delete(request.queues.get(params.queue_id, request.realm.realm.id, request.user.userId));
  return {};
}

/** A single-use token for opening the event WebSocket from a browser (docs/api.md, "Event stream"). */
export function issueSocketToken(request: UserRequest) {
  return { token: request.socketTokens.issue(request.realm.realm.id, request.user.userId), expires_in: request.socketTokens.ttlSeconds };
}
