// The operations a schedule's slot may start, one entry each: whom it acts as, and the request it
// makes. A send carries a token (run, intended time, sequence) that each recipient's event stream
// recognises; everything else is what a chat client does beside reading.
import type { Answer, Api } from './api.js';
import { seededRandom } from '../lib/random.js';
import { channelsOf, type Cast } from './setup.js';
import type { Scenario } from './scenario.js';

export interface OperationContext {
  cast: Cast;
  scenario: Scenario;
  runId: string;
  /** The API as user `index`. */
  api(index: number): Api;
  /** The newest channel message user `index` has received (for reactions), if any. */
  lastMessage(index: number): number | undefined;
  /** Reactions a user has on, to take them off again rather than add one twice. */
  reactions: Set<string>;
}

export interface Draw {
  /** Uniform in [0, 1), drawn from the slot's own seed. */
  (): number;
}

/** What a started operation is: the request, and for a send how many deliveries it owes. */
export interface Started {
  answer: Promise<Answer>;
  deliveries: number;
}

const pick = <T>(items: readonly T[], draw: Draw): T => items[Math.floor(draw() * items.length)]!;
const topicName = (draw: Draw, scenario: Scenario): string => `topic ${Math.floor(draw() * scenario.topics)}`;
const EMOJI = ['octopus', 'tada', 'heart', 'rocket', 'smile', 'eyes'];

export const TOKEN = /\blt:([a-z0-9]+):(\d+):/;
export const token = (runId: string, intendedAt: number, seq: string): string => `lt:${runId}:${Math.round(intendedAt)}:${seq}`;

type Operation = (context: OperationContext, user: number, draw: Draw, intendedAt: number, seq: string) => Started | undefined;

export const OPERATIONS: Record<string, Operation> = {
  send(context, user, draw, intendedAt, seq) {
    const content = `${token(context.runId, intendedAt, seq)} load test message`;
    const others = context.cast.users.length - 1;
    if (others > 0 && draw() < context.scenario.dm_share) {
      const other = (user + 1 + Math.floor(draw() * others)) % context.cast.users.length;
      return { answer: context.api(user).call('POST', '/messages', { type: 'direct', to: [context.cast.users[other]!.userId], content }), deliveries: 2 };
    }
    const channel = context.cast.channels[pick(channelsOf(user, context.scenario), draw)]!;
    return { answer: context.api(user).call('POST', '/messages', { type: 'stream', to: channel.id, topic: topicName(draw, context.scenario), content }), deliveries: channel.members.length };
  },
  fetch(context, user, draw) {
    const channel = context.cast.channels[pick(channelsOf(user, context.scenario), draw)]!;
    return { answer: context.api(user).call('GET', '/messages', { anchor: 'newest', num_before: context.scenario.fetch_window, num_after: 0, narrow: [{ operator: 'stream', operand: channel.name }], apply_markdown: false }), deliveries: 0 };
  },
  mark_read(context, user, draw) {
    const channel = context.cast.channels[pick(channelsOf(user, context.scenario), draw)]!;
    const narrow = [
      { operator: 'stream', operand: channel.name },
      { operator: 'topic', operand: topicName(draw, context.scenario) },
    ];
    return { answer: context.api(user).call('POST', '/messages/flags/narrow', { anchor: 'oldest', include_anchor: true, num_before: 0, num_after: 1000, narrow, op: 'add', flag: 'read' }), deliveries: 0 };
  },
  react(context, user, draw) {
    const message = context.lastMessage(user);
    if (message === undefined) return undefined;
    const emoji = pick(EMOJI, draw);
    const key = `${user}:${message}:${emoji}`;
    const on = context.reactions.has(key);
    if (on) context.reactions.delete(key);
    else context.reactions.add(key);
    return { answer: context.api(user).call(on ? 'DELETE' : 'POST', `/messages/${message}/reactions`, { emoji_name: emoji }), deliveries: 0 };
  },
  typing(context, user, draw) {
    const channel = context.cast.channels[pick(channelsOf(user, context.scenario), draw)]!;
    return { answer: context.api(user).call('POST', '/typing', { type: 'stream', op: 'start', stream_id: channel.id, topic: topicName(draw, context.scenario) }), deliveries: 0 };
  },
  presence(context, user) {
    return { answer: context.api(user).call('POST', '/users/me/presence', { status: 'active', new_user_input: true }), deliveries: 0 };
  },
};

/** A slot's draws: the same choices on every run. */
export const seeded = (seed: number): Draw => seededRandom(seed);
