// A digest of what users see of their realms, read from the realm actors' memory: each observer's
// whole register state (every event type, subscribers included) and the newest messages they can
// read. Two equal digests mean nothing those users can see has changed: a refused request must
// leave it as it was, and so must a restart (what is in memory is what is on disk).
import { createHash } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { RealmActor } from '../../src/realm/actor.js';
import { MAX_MESSAGES_PER_FETCH } from '../../src/realm/commands/messages.js';
import { comparable, type State } from './applyEvent.js';

export interface Observer {
  realm: RealmActor;
  userId: number;
}

/** An observer's view as JSON text. */
async function viewOf({ realm, userId }: Observer): Promise<string> {
  const { state } = await realm.ask('events.register', userId, {
    eventTypes: null,
    fetchEventTypes: null,
    narrow: [],
    allPublicStreams: true,
    clientGravatar: false,
    applyMarkdown: false,
    includeSubscribers: true,
    lifespanSecs: null,
    clientCapabilities: {},
    slimPresence: false,
    presenceHistoryLimitDays: null,
  });
  const messages = await realm.ask('messages.window', userId, { anchor: 'newest', numBefore: MAX_MESSAGES_PER_FETCH - 1, numAfter: 0, includeAnchor: true, narrow: [], view: { applyMarkdown: false, clientGravatar: false, allowEmptyTopicName: true } });
  const text = state.join('');
  return JSON.stringify([comparable(JSON.parse(`{${text}}`) as State), messages]);
}

export interface Digest {
  hash: string;
  /** Each observer's view (JSON), to name what differs. */
  views: string[];
}

export async function realmDigest(observers: readonly Observer[]): Promise<Digest> {
  const views: string[] = [];
  for (const observer of observers) views.push(await viewOf(observer));
  return { hash: createHash('sha256').update(views.join('\n')).digest('hex'), views };
}

/** Where two views first differ: a path and both values. */
function firstDifference(expected: unknown, actual: unknown, path: string): string | undefined {
  if (JSON.stringify(expected) === JSON.stringify(actual)) return undefined;
  if (typeof expected === 'object' && expected !== null && typeof actual === 'object' && actual !== null) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const key of keys) {
      const found = firstDifference((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], `${path}.${key}`);
      if (found) return found;
    }
  }
  const show = (value: unknown) => (JSON.stringify(value) ?? 'absent').slice(0, 200);
  return `${path}: ${show(expected)} became ${show(actual)}`;
}

export function assertSameState(actual: Digest, expected: Digest, message: string): void {
  const parsed = (digest: Digest) => digest.views.map((view) => JSON.parse(view) as unknown);
  if (actual.hash !== expected.hash) assert.unreachable(`${message}: ${firstDifference(parsed(expected), parsed(actual), 'observer')}`);
}
