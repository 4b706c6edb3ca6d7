// Links into the web app's narrows, as Zulip writes them (its hash encoding: '%' becomes '.', and
// '.', '(' and ')' are escaped so the link survives Markdown and chat clients).
import type { MessageRecord } from './records.js';

export const hashComponent = (text: string): string => encodeURIComponent(text).replace(/[.()%]/g, (char) => ({ '.': '%2E', '(': '%28', ')': '%29', '%': '.' })[char]!);

/** The channel's narrow fragment: `channel/<id>-<name>`. */
export const channelFragment = (channelId: number, name: string): string => `channel/${channelId}-${hashComponent(name)}`;

/** The link to a message in its conversation (Zulip's message_link_url); `channelName` for a channel
 * message. */
export function messageUrl(base: string, message: MessageRecord, channelName: string | undefined): string {
  const conversation =
    message.channelId === null ? `dm/${message.participants.join(',')}-${message.participants.length > 2 ? 'group' : 'dm'}` : `${channelFragment(message.channelId, channelName ?? '')}/topic/${hashComponent(message.topic)}`;
  return `${base}/#narrow/${conversation}/near/${message.id}`;
}
