// Events for clients that predate the empty topic: a queue whose client did not declare the
// empty_topic_name capability gets the topic's display name wherever an event names a topic, as
// Zulip's event queue does.
import { EMPTY_TOPIC_DISPLAY_NAME, shownTopic } from '../messages/emptyTopic.js';
import type { MessageDetails } from './catalogue.js';
import { JsonText } from './jsonText.js';
import type { ZulipEvent } from './types.js';

type Details = Record<string, MessageDetails>;

/** Unread details with the empty topic shown by name; the same object when none is empty. JSON
 * text the server wrote is read only when it may hold an empty topic. */
function detailsShown(details: Details | JsonText<Details>): Details | JsonText<Details> {
  if (details instanceof JsonText && !details.text.includes('"topic":""')) return details;
  const entries = Object.entries(details instanceof JsonText ? details.toJSON() : details);
  if (!entries.some(([, detail]) => detail.type === 'stream' && detail.topic === '')) return details;
  return Object.fromEntries(entries.map(([id, detail]) => [id, detail.type === 'stream' ? { ...detail, topic: shownTopic(detail.topic, false) } : detail]));
}

/** The event as a client without the empty_topic_name capability gets it: the same object when it
 * names no empty topic (so one encoding still serves every queue that gets it). */
export function withTopicDisplayName(event: ZulipEvent): ZulipEvent {
  switch (event.type) {
    case 'message':
      return event.message.type === 'stream' && event.message.subject === '' ? { ...event, message: { ...event.message, subject: EMPTY_TOPIC_DISPLAY_NAME } } : event;
    case 'update_message':
      return event.orig_subject === '' || event.subject === ''
        ? {
            ...event,
            ...(event.orig_subject === undefined ? {} : { orig_subject: shownTopic(event.orig_subject, false) }),
            ...(event.subject === undefined ? {} : { subject: shownTopic(event.subject, false) }),
          }
        : event;
    case 'delete_message':
    case 'typing':
      return 'topic' in event && event.topic === '' ? { ...event, topic: EMPTY_TOPIC_DISPLAY_NAME } : event;
    case 'user_topic':
      return event.topic_name === '' ? { ...event, topic_name: EMPTY_TOPIC_DISPLAY_NAME } : event;
    case 'update_message_flags': {
      if (event.op !== 'remove' || event.flag !== 'read' || event.message_details === undefined) return event;
      const details = detailsShown(event.message_details);
      return details === event.message_details ? event : { ...event, message_details: details };
    }
    default:
      return event;
  }
}
