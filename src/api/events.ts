// Event endpoints: POST /register, GET /events (long-poll), DELETE /events.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import { waitForEvents } from '../events/longPoll.js';
import { eventJson } from '../events/types.js';
import { JsonArray, JsonFields, membersOf } from '../realm/jsonFields.js';
import type { ServerContext, UserRequest } from '../http/route.js';
import type { QueueRequest } from '../threads/peers.js';

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

export function getEvents(request: UserRequest, params: Params<typeof schemas.getEvents>): Promise<JsonFields> {
  return toQueue(request, { kind: 'read', realmId: request.realm.realm.id, userId: request.user.userId, queueId: params.queue_id, lastEventId: params.last_event_id, dontBlock: params.dont_block });
}

export function deleteQueue(request: UserRequest, params: Params<typeof schemas.deleteQueue>): Promise<JsonFields> {
  return toQueue(request, { kind: 'delete', realmId: request.realm.realm.id, userId: request.user.userId, queueId: params.queue_id });
}

/** A request about a queue, answered where the queue is: here, or on the front its ID names. */
function toQueue(request: UserRequest, queueRequest: QueueRequest): Promise<JsonFields> {
  const holder = request.peers?.holder(queueRequest.queueId);
  return holder === undefined ? answerQueueRequest(request, queueRequest, () => request.signal) : request.peers!.ask(holder, queueRequest, request.signal);
}

/** Answers a request about a queue held here (for a client of this front, or one another front
 * relayed): a long-poll, or its deletion. `signal`, asked for only by a long-poll that waits, stops
 * the wait when the client goes away. */
export async function answerQueueRequest(server: Pick<ServerContext, 'queues' | 'config'>, request: QueueRequest, signal: () => AbortSignal): Promise<JsonFields> {
  const queue = server.queues.get(request.queueId, request.realmId, request.userId);
  if (request.kind === 'delete') {
    server.queues.delete(queue);
    return new JsonFields();
  }
  queue.acknowledge(request.lastEventId);
  const ready = queue.after(request.lastEventId);
  const events =
    ready.length > 0 || request.dontBlock || server.queues.closing
      ? ready
      : await waitForEvents(queue, request.lastEventId, { ms: server.config.heartbeatSeconds * 1000, clock: server.config.clock }, signal());
  queue.touch();
  // Each event's JSON is made once, whatever the number of queues that get it.
  return new JsonFields(...membersOf({ events: new JsonArray(events.map(eventJson)), queue_id: queue.id }));
}

/** A single-use token for opening the event WebSocket from a browser (docs/api.md, "Event stream"). */
export function issueSocketToken(request: UserRequest) {
  return { token: request.socketTokens.issue(request.realm.realm.id, request.user.userId), expires_in: request.socketTokens.ttlSeconds };
}
