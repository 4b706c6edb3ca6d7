// Events as Zulip sends them: a `type`, usually an `op`, and a payload. The queue adds `id`.
import type { MessageRecord } from '../messages/records.js';

export interface ZulipEvent {
  type: string;
  op?: string;
  [field: string]: unknown;
}

/** An event with the users who may see it, emitted by a realm command after its commit. */
export interface Emitted {
  event: ZulipEvent;
  userIds: Iterable<number>;
  /** Message events: the message (queues registered with a narrow filter on it) and these
   * recipients' flags. */
  message?: { record: MessageRecord; flags: number };
  /** The event as a queue with these settings gets it (message events: content and avatar);
   * must return one shared object per distinct combination. */
  forQueue?: (settings: { applyMarkdown: boolean; clientGravatar: boolean }) => ZulipEvent;
}

export interface QueuedEvent {
  id: number;
  event: ZulipEvent;
}

const serialized = new WeakMap<ZulipEvent, string>();

/** `{"id":N, ...event}` as JSON. The event's own JSON is built once and shared by every queue
 * that delivers it, so fan-out to many sockets costs one serialization per event. */
export function eventJson({ id, event }: QueuedEvent): string {
  let body = serialized.get(event);
  if (body === undefined) {
    body = JSON.stringify(event);
    serialized.set(event, body);
  }
  return body === '{}' ? `{"id":${id}}` : `{"id":${id},${body.slice(1)}`;
}
