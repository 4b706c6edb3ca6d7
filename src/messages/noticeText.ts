// Pieces of the Markdown that the notification bot writes about other messages (reminders, moderation
// reports, scheduled-message failures), as Zulip writes them.
import type { UserRecord } from '../users/records.js';

/** A silent mention: names the user without notifying them. */
export const silentMention = (user: Pick<UserRecord, 'fullName' | 'id'>): string => `@_**${user.fullName}|${user.id}**`;

/** "A", "A and B", "A, B and C". */
export const listed = (items: string[]): string => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`);

/** A code fence longer than any run of backticks in the text, so quoting it cannot close it early. */
export function unusedFence(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

/** The text cut to `max` characters, saying so at its end. */
export function truncated(text: string, max: number): string {
  const marker = '\n[message truncated]';
  return text.length > max ? `${text.slice(0, max - marker.length)}${marker}` : text;
}

/** A time every reader sees in their own time zone (Zulip's `<time:…>` syntax), from UNIX seconds. */
export const globalTime = (seconds: number): string => `<time:${new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00')}>`;

/** The #channel>topic@message link syntax to a channel message. */
export const messageLinkSyntax = (channelName: string, topic: string, messageId: number): string => `#**${channelName}>${topic}@${messageId}**`;
