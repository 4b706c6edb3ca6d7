// A message's edit history as the API shows it (spec: Edit-history snapshot): one snapshot per
// state, oldest first; the first holds only topic, content, rendered_content, timestamp and
// user_id; each later one adds prev_* fields for what that edit changed.
import { diffWords } from 'diff';
import { RESOLVED_PREFIX, type MessageRecord } from './records.js';

export interface Snapshot {
  topic: string;
  content: string;
  rendered_content: string;
  user_id: number | null;
  timestamp: number;
  prev_topic?: string;
  stream?: number;
  prev_stream?: number;
  prev_content?: string;
  prev_rendered_content?: string;
  content_html_diff?: string;
}

/** HTML that marks what an edit inserted and deleted, as Zulip's highlight classes do. */
export function htmlDiff(before: string, after: string): string {
  return diffWords(before, after)
    .map((part) => (part.added ? `<span class="highlight_text_inserted">${part.value}</span>` : part.removed ? `<span class="highlight_text_deleted">${part.value}</span>` : part.value))
    .join('');
}

export function editHistory(message: MessageRecord, showTopic: (topic: string) => string): Snapshot[] {
  // Walk back from the current state to each earlier one.
  let state = { topic: message.topic, content: message.content, rendered: message.renderedContent, channelId: message.channelId };
  const later: Snapshot[] = [];
  for (const edit of [...(message.edits ?? [])].reverse()) {
    const before = {
      topic: edit.prevTopic ?? state.topic,
      content: edit.prevContent ?? state.content,
      rendered: edit.prevRenderedContent ?? state.rendered,
      channelId: edit.prevChannelId ?? state.channelId,
    };
    const snapshot: Snapshot = { topic: showTopic(state.topic), content: state.content, rendered_content: state.rendered, user_id: edit.userId, timestamp: edit.timestamp };
    if (edit.prevTopic !== undefined) snapshot.prev_topic = showTopic(edit.prevTopic);
    if (edit.prevChannelId !== undefined) Object.assign(snapshot, { stream: state.channelId, prev_stream: edit.prevChannelId });
    if (edit.prevContent !== undefined) {
      Object.assign(snapshot, { prev_content: before.content, prev_rendered_content: before.rendered, content_html_diff: htmlDiff(before.rendered, state.rendered) });
    }
    later.unshift(snapshot);
    state = before;
  }
  const first: Snapshot = { topic: showTopic(state.topic), content: state.content, rendered_content: state.rendered, user_id: message.senderId, timestamp: message.timestamp };
  return [first, ...later];
}

const unresolved = (topic: string): string => (topic.startsWith(RESOLVED_PREFIX) ? topic.slice(RESOLVED_PREFIX.length) : topic);

/** Zulip's last_edit_timestamp (the content's last edit) and last_moved_timestamp (the last move
 * to another channel or topic; resolving or unresolving the topic is no move), each absent until
 * it happened. */
export function editTimes(message: MessageRecord): { last_edit_timestamp?: number; last_moved_timestamp?: number } {
  const times: { last_edit_timestamp?: number; last_moved_timestamp?: number } = {};
  let topicAfter = message.topic;
  for (const edit of [...(message.edits ?? [])].reverse()) {
    if (edit.prevContent !== undefined) times.last_edit_timestamp ??= edit.timestamp;
    const renamed = edit.prevTopic !== undefined && unresolved(edit.prevTopic) !== unresolved(topicAfter);
    if (edit.prevChannelId !== undefined || renamed) times.last_moved_timestamp ??= edit.timestamp;
    topicAfter = edit.prevTopic ?? topicAfter;
  }
  return times;
}
