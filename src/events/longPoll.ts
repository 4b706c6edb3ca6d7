// A parked GET /events: the queue's consumer until events arrive, a heartbeat falls due, another
// consumer takes over, the queue is deleted (answered cleanly, with what it held: the client
// deleted it itself, as Zulip's clients do on leaving), or the client goes away.
import type { Clock } from '../clock.js';
import type { Consumer, EventQueue } from './queue.js';
import type { QueuedEvent } from './types.js';

export function waitForEvents(queue: EventQueue, lastEventId: number, heartbeat: { ms: number; clock: Clock }, signal: AbortSignal): Promise<QueuedEvent[]> {
  // Gone already (while its credentials were checked): nothing to wait for.
  if (signal.aborted) return Promise.resolve([]);
  return new Promise((resolve) => {
    const finish = (outcome: () => void): void => {
      cancelHeartbeat();
      signal.removeEventListener('abort', onAbort);
      queue.release(consumer);
      outcome();
    };
    const consumer: Consumer = {
      notify: () => finish(() => resolve(queue.after(lastEventId))),
      detach: () => finish(() => resolve(queue.after(lastEventId))),
    };
    const onAbort = (): void => finish(() => resolve([]));
    // Zulip's heartbeat is an event like any other, so the client acknowledges it the same way.
    const cancelHeartbeat = heartbeat.clock.after(heartbeat.ms, () => queue.push({ type: 'heartbeat' }));
    signal.addEventListener('abort', onAbort);
    queue.attach(consumer);
  });
}
