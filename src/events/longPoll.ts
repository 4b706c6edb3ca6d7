// A parked GET /events: the queue's consumer until events arrive, a heartbeat falls due, another
// consumer takes over, or the client goes away.
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { Consumer, DetachReason, EventQueue } from './queue.js';
import type { QueuedEvent } from './types.js';

export function waitForEvents(queue: EventQueue, lastEventId: number, heartbeat: { ms: number; clock: Clock }, signal: AbortSignal): Promise<QueuedEvent[]> {
  return new Promise((resolve, reject) => {
    const finish = (outcome: () => void): void => {
      cancelHeartbeat();
      signal.removeEventListener('abort', onAbort);
      queue.release(consumer);
      outcome();
    };
    const consumer: Consumer = {
      notify: () => finish(() => resolve(queue.after(lastEventId))),
      detach: (reason: DetachReason) => finish(() => (reason === 'deleted' ? reject(errors.badEventQueueId(queue.id)) : resolve(queue.after(lastEventId)))),
    };
    const onAbort = (): void => finish(() => resolve([]));
    // Zulip's heartbeat is an event like any other, so the client acknowledges it the same way.
    const cancelHeartbeat = heartbeat.clock.after(heartbeat.ms, () => queue.push({ type: 'heartbeat' }));
    signal.addEventListener('abort', onAbort);
    queue.attach(consumer);
  });
}
