// Events as they travel: with the users they are for, queued with their ID, and as frames. What
// each event holds is the catalogue (catalogue.ts).
import { pack } from 'msgpackr';
import type { MessageRecord } from '../messages/records.js';
import type { Capability } from './capabilities.js';
import type { MessageDetails, UpdateMessageFlagsEvent, ZulipEvent as WireEvent } from './catalogue.js';
import { jsonWithTexts, type JsonText } from './jsonText.js';

/** An event as commands emit it and queues hold it: the catalogue's (what clients receive), except
 * that an update_message_flags event's message_details may be JSON text the server wrote. */
export type ZulipEvent =
  | Exclude<WireEvent, UpdateMessageFlagsEvent>
  | (Omit<UpdateMessageFlagsEvent, 'message_details'> & { message_details?: UpdateMessageFlagsEvent['message_details'] | JsonText<Record<string, MessageDetails>> });

/** An event with the users who may see it, emitted by a realm command after its commit: plain data,
 * the same wherever it travels (to another thread, to other nodes). */
export interface Emitted {
  event: ZulipEvent;
  userIds: readonly number[];
  /** Message events: the message (queues registered with a narrow filter on it), these
   * recipients' flags, and the sender's avatar as clients with client_gravatar get it (null: they
   * compute it from the e-mail). The event is as queues with apply_markdown and without
   * client_gravatar get it; the other variants are made from it (messageVariants.ts). */
  message?: { record: MessageRecord; flags: number; gravatarAvatar: string | null };
  /** Only to the users' queues registered with all_public_streams (a public channel's message
   * to those who did not receive it). */
  allPublicStreamsOnly?: true;
  /** Only to queues whose client declared (`declared: true`) or did not declare this capability:
   * a change told one way to clients that understand it and another to older ones. */
  capability?: { name: Capability; declared: boolean };
  /** A message event for its sender: the queue that sent it (POST /messages' queue_id) gets the
   * event with local_message_id, the client's local_id, to match its local echo (Zulip's). */
  localEcho?: LocalEcho;
  /** Once delivered, these users' queues are deleted (a deactivated user's: their clients learn it
   * from BAD_EVENT_QUEUE_ID, as in Zulip). */
  closesQueuesOf?: readonly number[];
}

/** The queue a message was sent from and the ID its client gave the message's local echo. */
export interface LocalEcho {
  queueId: string;
  localId: string;
}

export interface QueuedEvent {
  id: number;
  event: ZulipEvent;
}

export type FrameFormat = 'json' | 'msgpack';

const frames: Record<FrameFormat, WeakMap<QueuedEvent, Buffer>> = { json: new WeakMap(), msgpack: new WeakMap() };
const texts = new WeakMap<QueuedEvent, string>();

/** An event as the client gets it, `{...event, id}`, in JSON. A QueuedEvent is shared by every
 * queue that gets it, so it is encoded once, however many long-polls and sockets it goes to. */
export function eventJson(queued: QueuedEvent): string {
  let text = texts.get(queued);
  if (text === undefined) {
    text = jsonWithTexts({ ...queued.event, id: queued.id });
    texts.set(queued, text);
  }
  return text;
}

/** The WebSocket frame of an event: encoded once per event and format. */
export function eventFrame(queued: QueuedEvent, format: FrameFormat): Buffer {
  let frame = frames[format].get(queued);
  if (!frame) {
    frame = format === 'json' ? Buffer.from(eventJson(queued)) : pack({ ...queued.event, id: queued.id });
    frames[format].set(queued, frame);
  }
  return frame;
}
