// Stored messages and Zulip's per-user message flag bits.
import type { Emoji } from '../users/emoji.js';

export interface MessageRecord {
  id: number;
  realmId: number;
  senderId: number;
  /** Zulip's recipient ID: the channel's, or the direct-message group's. */
  recipientId: number;
  type: 'stream' | 'private';
  channelId: number | null;
  /** '' is the empty topic; direct messages have none. */
  topic: string;
  /** Direct messages: every participant's user ID, sorted (sender included). */
  participants: number[];
  content: string;
  renderedContent: string;
  timestamp: number;
  client: string;
  /** Edits, oldest first; each says what it replaced. */
  edits?: EditRecord[];
  /** Emoji reactions, oldest first (absent: none). */
  reactions?: ReactionRecord[];
  /** Zulip's submessages (a poll's or to-do list's widget, then its events), oldest first
   * (absent: none, as for most messages). */
  submessages?: SubmessageRecord[];
  /** What the rendered content holds (HasBit), for the has: narrows; recorded wherever the content
   * is written (renderedFields), so no narrow reads the HTML. Absent (before format 8): none. */
  has?: number;
}

/** One submessage: `content` is the JSON text as its sender gave it (Zulip's SubMessage). */
export interface SubmessageRecord {
  id: number;
  senderId: number;
  msgType: string;
  content: string;
}

/** A rendered message's links, inline image previews and uploaded files' links. */
export const HasBit = { link: 1, image: 2, attachment: 4 } as const;

/** The bits of HasBit the rendered HTML holds: three substring scans of what the renderer wrote
 * (its links, its image previews' class, its upload paths). */
export function contentHas(html: string): number {
  if (!html.includes('<a href="')) return 0;
  return HasBit.link | (html.includes('class="message_inline_image') ? HasBit.image : 0) | (html.includes('href="/user_uploads/') ? HasBit.attachment : 0);
}

/** A message's rendered content with what it holds, to spread into its record. */
export const renderedFields = (html: string): Pick<MessageRecord, 'renderedContent' | 'has'> => ({ renderedContent: html, has: contentHas(html) });

/** A new message's recipients and each one's flags, in the same order (two arrays rather than a
 * map: the send path fills one entry per recipient for every message). */
export interface RecipientFlags {
  userIds: readonly number[];
  flags: readonly number[];
}

/** One user's emoji reaction to a message (Zulip's Reaction). */
export interface ReactionRecord extends Emoji {
  userId: number;
}

/** Where a message is: what flag updates and their events need, without the content. */
export interface MessageHeader {
  type: 'stream' | 'private';
  channelId: number | null;
  /** The conversation: the channel's recipient ID, or the direct-message group's. */
  recipientId: number;
  topic: string;
  participants: number[];
}

export const headerOf = (message: MessageRecord): MessageHeader => ({
  type: message.type,
  channelId: message.channelId,
  recipientId: message.recipientId,
  topic: message.topic,
  participants: message.participants,
});

/** Zulip's prefix of resolved topics. */
export const RESOLVED_PREFIX = '✔ ';

export interface EditRecord {
  timestamp: number;
  userId: number;
  prevTopic?: string;
  prevContent?: string;
  prevRenderedContent?: string;
  prevChannelId?: number;
}

/** Zulip's flag bits (UserMessage.flags). */
export const Flag = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  stream_wildcard_mentioned: 16,
  topic_wildcard_mentioned: 32,
  group_mentioned: 64,
  has_alert_word: 512,
  historical: 1024,
} as const;
export type FlagName = keyof typeof Flag;

/** The flags of a message the user has no row for (one of a channel's history they may read). */
export const HISTORICAL_FLAGS = Flag.read | Flag.historical;

/** The flags by name, listed once (a window of 1,000 messages listed them 1,000 times). */
const flagEntries = Object.entries(Flag) as [FlagName, number][];

/** The flag names of a bitmask, as the API lists them (with the deprecated wildcard_mentioned). */
export function flagNames(bits: number): string[] {
  const names: string[] = [];
  for (const [name, bit] of flagEntries) if (bits & bit) names.push(name);
  if (bits & (Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned)) names.push('wildcard_mentioned');
  return names;
}

/** A user's visibility policy for a topic other than inherit (Zulip's UserTopic). */
export interface UserTopicRecord {
  channelId: number;
  /** As the user last wrote it. */
  topic: string;
  /** 1 muted, 2 unmuted, 3 followed. */
  policy: number;
  lastUpdated: number;
}

/** A draft (spec: Draft object), kept per user so their clients stay in step. */
export interface DraftRecord {
  id: number;
  type: '' | 'stream' | 'private';
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
}

/** A message to send later (Zulip's ScheduledMessage), kept until it is sent or deleted. Sent ones
 * are removed: the API never shows them again. */
export interface ScheduledMessageRecord {
  id: number;
  senderId: number;
  type: 'stream' | 'private';
  /** The channel ID, or the recipients' user IDs (the sender's own only for a message to self). */
  to: number | number[];
  /** '' for direct messages. */
  topic: string;
  content: string;
  renderedContent: string;
  /** UNIX seconds. */
  deliverAt: number;
  readBySender: boolean;
  client: string;
  /** The lifecycle machine's state: waiting for its time, or tried and failed. */
  state: 'scheduled' | 'failed';
  /** Why the last delivery failed. */
  failureMessage: string | null;
  /** A reminder (Zulip's delivery type REMIND): the message it is about. The notification bot
   * delivers it to its sender; GET /reminders, not GET /scheduled_messages, shows it. */
  reminderFor?: number;
}
