// Links into the web app's narrows, as Zulip writes them: for messages, e-mails, reminders and the
// links Markdown renders.
import type { MessageRecord } from './records.js';

/** Zulip's hash_util_encode: every character but letters, digits and `-_.~` percent-encoded, `.`
 * too, then `%` written as `.` (so the link survives Markdown and chat clients). */
export const hashComponent = (text: string): string =>
  encodeURIComponent(text)
    .replace(/[!'()*.]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%/g, '.');

/** The channel's narrow fragment: `channel/<id>-<name>`, spaces in the name as dashes (Zulip's
 * encode_stream). */
export const channelFragment = (channelId: number, name: string): string => `channel/${channelId}-${hashComponent(name.replace(/ /g, '-'))}`;

/** A topic's narrow fragment: `channel/<id>-<name>/topic/<topic>`. */
export const topicFragment = (channelId: number, channelName: string, topic: string): string => `${channelFragment(channelId, channelName)}/topic/${hashComponent(topic)}`;

/** The link to a message in its conversation (Zulip's message_link_url); `channelName` for a channel
 * message. */
export function messageUrl(base: string, message: MessageRecord, channelName: string | undefined): string {
  const conversation =
    message.channelId === null ? `dm/${message.participants.join(',')}-${message.participants.length > 2 ? 'group' : 'dm'}` : topicFragment(message.channelId, channelName ?? '', message.topic);
  return `${base}/#narrow/${conversation}/near/${message.id}`;
}
