// The empty topic ("general chat", Zulip 10's channel messages without a topic) and its display
// name: what clients that do not take the empty string see (a register without the empty_topic_name
// capability, a fetch without allow_empty_topic_name) and what they may send to mean it.

/** Zulip's realm_empty_topic_display_name (fixed, in Zulip as here). */
export const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';

/** A topic name as a client sees it: the empty topic under its display name unless the client
 * takes the empty string. */
export const shownTopic = (topic: string, allowEmpty: boolean): string => (topic === '' && !allowEmpty ? EMPTY_TOPIC_DISPLAY_NAME : topic);

/** A topic a client sent: `(no topic)` and the display name both mean the empty topic (feature
 * levels 334, 370). */
export function normalizeTopic(topic: string): string {
  const trimmed = topic.trim();
  return trimmed === '(no topic)' || trimmed === EMPTY_TOPIC_DISPLAY_NAME ? '' : trimmed;
}
