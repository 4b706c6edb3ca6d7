// One realm's event queues on one server, driven directly: the emissions a realm's owner makes and
// the registrations that open queues on its states, for tests of how positions and owners follow on.
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/errors.js';
import type { EventQueues, NewQueue } from '../../src/events/queues.js';
import type { Emitted } from '../../src/events/types.js';

export const REALM = 1;
export const HAMLET = 10;
export const OTHELLO = 11;

export const settings: NewQueue = { eventTypes: null, allPublicStreams: false, narrow: [], clientGravatar: false, applyMarkdown: true, lifespanMs: 600_000 };
export const shelf = { saveQueues: async () => undefined, takeSavedQueues: async () => [] };

/** A status change of Hamlet's, for Hamlet and Othello. */
export const status = (text: string): Emitted => ({ event: { type: 'user_status', user_id: HAMLET, status_text: text }, userIds: [HAMLET, OTHELLO] });

/** The status texts in a queue, once what is pending is delivered. */
export function texts(queues: EventQueues, queueId: string, userId: number): (string | undefined)[] {
  queues.deliverPending();
  return queues.get(queueId, REALM, userId).after(-1).map(({ event }) => (event as { status_text?: string }).status_text);
}

/** A queue opened on a state read at `position` by the realm's owner of `epoch`. */
export function opened(queues: EventQueues, userId: number, position: number, epoch = 0): string {
  const registration = queues.begin(REALM, userId);
  try {
    return registration.open(settings, position, epoch).id;
  } finally {
    registration.end();
  }
}

/** Asserts the queue is gone: its client gets BAD_EVENT_QUEUE_ID and registers again. */
export function gone(queues: EventQueues, queueId: string, userId: number, why: string): void {
  try {
    queues.get(queueId, REALM, userId);
    assert.unreachable(why);
  } catch (error) {
    assert.instance(error, ApiError);
    assert.is((error as ApiError).code, 'BAD_EVENT_QUEUE_ID', why);
  }
}

/** Asserts `open` is refused with 503 REALM_UNAVAILABLE (the client retries). */
export function refused(open: () => unknown, why: string): void {
  try {
    open();
    assert.unreachable(why);
  } catch (error) {
    assert.instance(error, ApiError);
    assert.equal([(error as ApiError).status, (error as ApiError).code], [503, 'REALM_UNAVAILABLE'], why);
  }
}
