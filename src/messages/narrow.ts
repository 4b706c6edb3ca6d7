// Narrows: parsing the API's narrow terms, resolving names to IDs, and matching messages. One
// module for every endpoint that takes a narrow (GET /messages, flags by narrow) and for event
// queues registered with one. Resolved terms are plain data, so a queue can persist them.
import { errors } from '../errors.js';
import type { RealmView } from '../organization/state.js';
import type { UserRecord } from '../users/records.js';
import { Flag, type MessageRecord } from './records.js';
import { parseSearch, searchMatches, type SearchQuery } from './search.js';

export type ResolvedTerm = { negated: boolean } & (
  | { op: 'channel'; channelId: number }
  | { op: 'channelIn'; channelIds: number[] }
  | { op: 'topic'; topic: string }
  | { op: 'sender'; userId: number }
  | { op: 'dm'; userIds: number[] }
  | { op: 'dm-including'; userId: number }
  | { op: 'is'; what: 'dm' | 'unread' | 'starred' | 'mentioned' | 'alerted' }
  | { op: 'id'; messageId: number }
  | { op: 'search'; query: SearchQuery }
);

/** A narrow term as clients send it: [operator, operand] or {operator, operand, negated}. */
export type RawTerm = [string, unknown] | { operator: string; operand: unknown; negated?: boolean };

const unknown = (what: string) => errors.badRequest(`Invalid narrow operator: unknown ${what}`);

function userByOperand(state: RealmView, operand: unknown, fakeDomain: string): UserRecord {
  const user = typeof operand === 'number' ? state.users.get(operand) : typeof operand === 'string' ? state.userByApiEmail(operand, fakeDomain) : undefined;
  if (!user) throw unknown('user');
  return user;
}

function usersByOperand(state: RealmView, operand: unknown, fakeDomain: string): number[] {
  const list = Array.isArray(operand) ? operand : typeof operand === 'string' ? operand.split(',').map((part) => part.trim()) : [operand];
  return list.map((item) => userByOperand(state, item, fakeDomain).id);
}

const scalarOperators = new Set(['channel', 'stream', 'id', 'sender', 'dm-including', 'group-pm-with']);
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

export function resolveNarrow(state: RealmView, viewer: UserRecord, raw: readonly RawTerm[], fakeDomain: string): ResolvedTerm[] {
  return raw.map((term): ResolvedTerm => {
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
        return { op: 'sender', userId: userByOperand(state, operand, fakeDomain).id, negated };
      case 'dm':
      case 'pm-with': {
        const ids = new Set([...usersByOperand(state, operand, fakeDomain), viewer.id]);
        return { op: 'dm', userIds: [...ids].sort((a, b) => a - b), negated };
      }
      case 'dm-including':
      case 'group-pm-with':
        return { op: 'dm-including', userId: userByOperand(state, operand, fakeDomain).id, negated };
      case 'is': {
        const what = operand === 'private' ? 'dm' : operand;
        if (what !== 'dm' && what !== 'unread' && what !== 'starred' && what !== 'mentioned' && what !== 'alerted') throw unknown('is operand');
        return { op: 'is', what, negated };
      }
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
          return (flags & Flag.read) === 0;
        case 'starred':
          return (flags & Flag.starred) !== 0;
        case 'mentioned':
          return (flags & mentionBits) !== 0;
        case 'alerted':
          return (flags & Flag.has_alert_word) !== 0;
      }
      return false;
    case 'id':
      return message.id === term.messageId;
    case 'search':
      return searchMatches(term.query, message);
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
