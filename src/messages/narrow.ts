// Narrows: parsing the API's narrow terms, resolving names to IDs, and matching messages. One
// module for every endpoint that takes a narrow (GET /messages, flags by narrow) and for event
// queues registered with one. Resolved terms are plain data, so a queue can persist them.
import { errors } from '../errors.js';
import type { RealmView } from '../organization/state.js';
import type { UserRecord } from '../users/records.js';
import { Flag, HasBit, RESOLVED_PREFIX, type MessageRecord, type UserTopicRecord } from './records.js';
import { parseSearch, searchMatches, type SearchQuery } from './search.js';

export type ResolvedTerm = { negated: boolean } & (
  | { op: 'channel'; channelId: number }
  | { op: 'channelIn'; channelIds: number[] }
  | { op: 'topic'; topic: string }
  | { op: 'sender'; userId: number }
  | { op: 'dm'; userIds: number[] }
  | { op: 'dm-including'; userId: number }
  | { op: 'is'; what: 'dm' | 'unread' | 'starred' | 'mentioned' | 'alerted' | 'resolved' }
  // is:followed and is:muted: the user's topics with that policy (keys of topicKey), and for muted
  // the muted channels but their unmuted topics. Plain data, so a queue can persist them.
  | { op: 'topics'; topics: string[]; channelIds: number[]; except: string[] }
  | { op: 'has'; what: 'link' | 'image' | 'attachment' | 'reaction' }
  | { op: 'id'; messageId: number }
  | { op: 'search'; query: SearchQuery }
);

/** A narrow term as clients send it: [operator, operand] or {operator, operand, negated}. */
export type RawTerm = [string, unknown] | { operator: string; operand: unknown; negated?: boolean };

/** What resolving needs beyond the realm's state: a message the viewer may read (for `with`), and
 * the viewer's topic policies (for is:followed and is:muted). */
export interface NarrowLookup {
  readableMessage(messageId: number): MessageRecord | undefined;
  userTopics(): UserTopicRecord[];
}

const unknown = (what: string) => errors.badRequest(`Invalid narrow operator: unknown ${what}`);

/** A user by ID or email; "me" is the viewer, as Zulip's clients write sender:me. */
function userByOperand(state: RealmView, viewer: UserRecord, operand: unknown, fakeDomain: string): UserRecord {
  if (operand === 'me') return viewer;
  const user = typeof operand === 'number' ? state.users.get(operand) : typeof operand === 'string' ? state.userByApiEmail(operand, fakeDomain) : undefined;
  if (!user) throw unknown('user');
  return user;
}

function usersByOperand(state: RealmView, viewer: UserRecord, operand: unknown, fakeDomain: string): number[] {
  const list = Array.isArray(operand) ? operand : typeof operand === 'string' ? operand.split(',').map((part) => part.trim()) : [operand];
  return list.map((item) => userByOperand(state, viewer, item, fakeDomain).id);
}

/** The key of a channel's topic in a `topics` term. */
export const topicKey = (channelId: number, topic: string): string => `${channelId}:${topic.toLowerCase()}`;

const FOLLOWED = 3;
const MUTED = 1;
const UNMUTED = 2;

function topicsTerm(state: RealmView, viewer: UserRecord, lookup: NarrowLookup, what: 'followed' | 'muted', negated: boolean): ResolvedTerm {
  const rows = lookup.userTopics();
  const keys = (policy: number) => rows.filter((row) => row.policy === policy).map((row) => topicKey(row.channelId, row.topic));
  if (what === 'followed') return { op: 'topics', topics: keys(FOLLOWED), channelIds: [], except: [], negated };
  const mutedChannels = [...state.channels.values()].filter((channel) => state.subscription(channel.id, viewer.id)?.isMuted === true).map((channel) => channel.id);
  return { op: 'topics', topics: keys(MUTED), channelIds: mutedChannels, except: keys(UNMUTED), negated };
}

const conversationOperators = new Set(['channel', 'stream', 'topic', 'subject', 'dm', 'pm-with', 'with']);

/** Zulip's `with`: the narrow becomes the conversation the message is in now (wherever it moved),
 * its other conversation terms dropped; a message the viewer may not read leaves the rest. */
function expandWith(raw: readonly RawTerm[], viewer: UserRecord, lookup: NarrowLookup): readonly RawTerm[] {
  const withTerms = raw.filter((term) => (Array.isArray(term) ? term[0] : term.operator) === 'with');
  if (withTerms.length === 0) return raw;
  if (withTerms.length > 1) throw errors.badRequest("Invalid narrow operator combination: Duplicate 'with' operators.");
  const [term] = withTerms;
  const operand = Array.isArray(term) ? term[1] : term!.operand;
  if (!isScalar(operand) || !Number.isInteger(Number(operand))) throw errors.badRequest("Invalid narrow operator: Invalid 'with' operator");
  const message = lookup.readableMessage(Number(operand));
  const rest = raw.filter((candidate) => candidate !== term);
  if (!message) return rest;
  const others = rest.filter((candidate) => !conversationOperators.has(Array.isArray(candidate) ? candidate[0] : candidate.operator));
  const conversation: RawTerm[] =
    message.type === 'stream'
      ? [['channel', message.channelId], ['topic', message.topic]]
      : [['dm', message.participants.length > 1 ? message.participants.filter((id) => id !== viewer.id) : message.participants]];
  return [...conversation, ...others];
}

const scalarOperators = new Set(['channel', 'stream', 'id', 'near', 'sender', 'dm-including', 'group-pm-with']);
const userListOperators = new Set(['dm', 'pm-with']);
const isScalar = (operand: unknown): boolean => typeof operand === 'string' || Number.isInteger(operand);

/** Zulip's NarrowParameter check of an operand's kind: an ID or a name, a list of users for direct
 * messages, text for the rest. Nothing else is read (a nested list once overflowed the stack when
 * made into text: a 500). */
function checkOperand(operator: string, operand: unknown): void {
  if (scalarOperators.has(operator)) {
    if (!isScalar(operand)) throw errors.badRequest('operand is not a string or integer');
  } else if (userListOperators.has(operator)) {
    if (!isScalar(operand) && !(Array.isArray(operand) && operand.every(isScalar))) throw errors.badRequest('operand is not a string or a list of users');
  } else if (typeof operand !== 'string') {
    throw errors.badRequest('operand is not a string');
  }
}

export function resolveNarrow(state: RealmView, viewer: UserRecord, raw: readonly RawTerm[], fakeDomain: string, lookup: NarrowLookup): ResolvedTerm[] {
  return expandWith(raw, viewer, lookup).flatMap((term): ResolvedTerm | [] => {
    const [operator, operand, negated] = Array.isArray(term) ? [term[0], term[1], false] : [term.operator, term.operand, term.negated ?? false];
    checkOperand(operator, operand);
    switch (operator) {
      case 'channel':
      case 'stream': {
        const channel = typeof operand === 'number' ? state.channels.get(operand) : typeof operand === 'string' ? (state.channelByName(operand) ?? state.channels.get(Number(operand))) : undefined;
        if (!channel) throw unknown('channel');
        return { op: 'channel', channelId: channel.id, negated };
      }
      case 'channels':
      case 'streams': {
        if (operand !== 'public' && operand !== 'web-public') throw unknown('channels operand');
        const ids = [...state.channels.values()].filter((channel) => (operand === 'public' ? !channel.inviteOnly : channel.isWebPublic)).map((channel) => channel.id);
        return { op: 'channelIn', channelIds: ids, negated };
      }
      case 'topic':
      case 'subject':
        return { op: 'topic', topic: String(operand).toLowerCase(), negated };
      case 'sender':
        return { op: 'sender', userId: userByOperand(state, viewer, operand, fakeDomain).id, negated };
      case 'dm':
      case 'pm-with': {
        const ids = new Set([...usersByOperand(state, viewer, operand, fakeDomain), viewer.id]);
        return { op: 'dm', userIds: [...ids].sort((a, b) => a - b), negated };
      }
      case 'dm-including':
      case 'group-pm-with':
        return { op: 'dm-including', userId: userByOperand(state, viewer, operand, fakeDomain).id, negated };
      case 'is': {
        const what = operand === 'private' ? 'dm' : operand;
        if (what === 'followed' || what === 'muted') return topicsTerm(state, viewer, lookup, what, negated);
        if (what !== 'dm' && what !== 'unread' && what !== 'starred' && what !== 'mentioned' && what !== 'alerted' && what !== 'resolved') throw unknown('is operand');
        return { op: 'is', what, negated };
      }
      case 'has':
        if (operand !== 'link' && operand !== 'image' && operand !== 'attachment' && operand !== 'reaction') throw unknown('has operand');
        return { op: 'has', what: operand, negated };
      case 'near':
        // Where the window is anchored, as in Zulip: it limits nothing.
        if (!Number.isInteger(Number(operand))) throw errors.badRequest('Invalid message ID');
        return [];
      case 'id':
        if (!Number.isInteger(Number(operand))) throw errors.badRequest('Invalid message ID');
        return { op: 'id', messageId: Number(operand), negated };
      case 'search':
        return { op: 'search', query: parseSearch(String(operand)), negated };
      default:
        throw unknown('operator');
    }
  });
}

const mentionBits = Flag.mentioned | Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned | Flag.group_mentioned;

/** What a flag term asks of a user's flags: one of `bits` set, or (is:unread) none of them. */
export interface FlagTest {
  bits: number;
  set: boolean;
}

const flagTests: Record<'unread' | 'starred' | 'mentioned' | 'alerted', FlagTest> = {
  unread: { bits: Flag.read, set: false },
  starred: { bits: Flag.starred, set: true },
  mentioned: { bits: mentionBits, set: true },
  alerted: { bits: Flag.has_alert_word, set: true },
};

export const passesFlagTest = (test: FlagTest, flags: number): boolean => ((flags & test.bits) !== 0) === test.set;

/** Whether an `is:` operand is decided by the user's flags alone. */
export const isFlagOperand = (what: string): what is keyof typeof flagTests => Object.hasOwn(flagTests, what);

/** The test of the narrow's first flag term that is not negated, which every message it matches
 * passes; undefined when it has none. */
export function requiredFlags(terms: readonly ResolvedTerm[]): FlagTest | undefined {
  for (const term of terms) if (term.op === 'is' && !term.negated && isFlagOperand(term.what)) return flagTests[term.what];
  return undefined;
}

function termHolds(term: ResolvedTerm, message: MessageRecord, flags: number): boolean {
  switch (term.op) {
    case 'channel':
      return message.channelId === term.channelId;
    case 'channelIn':
      return message.channelId !== null && term.channelIds.includes(message.channelId);
    case 'topic':
      return message.type === 'stream' && message.topic.toLowerCase() === term.topic;
    case 'sender':
      return message.senderId === term.userId;
    case 'dm':
      return message.type === 'private' && message.participants.length === term.userIds.length && message.participants.every((id, i) => id === term.userIds[i]);
    case 'dm-including':
      return message.type === 'private' && message.participants.includes(term.userId);
    case 'is':
      switch (term.what) {
        case 'dm':
          return message.type === 'private';
        case 'unread':
        case 'starred':
        case 'mentioned':
        case 'alerted':
          return passesFlagTest(flagTests[term.what], flags);
        case 'resolved':
          return message.type === 'stream' && message.topic.startsWith(RESOLVED_PREFIX);
      }
      return false;
    case 'topics': {
      if (message.type !== 'stream' || message.channelId === null) return false;
      const key = topicKey(message.channelId, message.topic);
      return term.topics.includes(key) || (term.channelIds.includes(message.channelId) && !term.except.includes(key));
    }
    case 'has':
      return hasHolds(term.what, message);
    case 'id':
      return message.id === term.messageId;
    case 'search':
      return searchMatches(term.query, message);
  }
}

/** What a message has: a link, an inline image preview, an uploaded file's link (recorded with
 * its content), or reactions. */
function hasHolds(what: 'link' | 'image' | 'attachment' | 'reaction', message: MessageRecord): boolean {
  switch (what) {
    case 'reaction':
      return (message.reactions?.length ?? 0) > 0;
    default:
      return ((message.has ?? 0) & HasBit[what]) !== 0;
  }
}

export function matchesNarrow(terms: readonly ResolvedTerm[], message: MessageRecord, flags: number): boolean {
  // Most queues have no narrow: every message event asks, once per queue it reaches.
  return terms.length === 0 || terms.every((term) => termHolds(term, message, flags) !== term.negated);
}

/** The query of the narrow's first search term that is not negated, if any: the index finds its
 * messages, and the narrow's messages carry highlights. */
export function narrowSearch(terms: readonly ResolvedTerm[]): SearchQuery | undefined {
  const term = terms.find((candidate) => candidate.op === 'search' && !candidate.negated);
  return term?.op === 'search' ? term.query : undefined;
}

/** The one channel a narrow is limited to, if any: its messages can be read from that channel's index. */
export function narrowChannel(terms: readonly ResolvedTerm[]): number | undefined {
  const term = terms.find((candidate) => candidate.op === 'channel' && !candidate.negated);
  return term?.op === 'channel' ? term.channelId : undefined;
}
