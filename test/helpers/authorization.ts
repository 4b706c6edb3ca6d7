// The authorization matrix: every route of the route table × every kind of caller, and the answer
// the route's auth kind (src/http/route.ts) promises, as Zulip gives it: 401 for missing, malformed
// or wrong credentials and for a deactivated user or a user of another realm; for a caller who is
// in but not allowed, 400 UNAUTHORIZED_PRINCIPAL (administrators only) or 400 "does not accept bot
// requests" (humans only); public routes open to all. Each request carries a body that is not JSON
// (`{` as application/json): a caller the route lets in gets the body's error, decided before any
// parameter is read (an upload route's: no file in it), so the matrix runs no handler, and must
// change nothing.
import * as assert from 'uvu/assert';
import { routes } from '../../src/api/routes.js';
import type { Route } from '../../src/http/route.js';
import type { Cast } from './cast.js';
import { sendRaw } from './client.js';
import { assertSameState, realmDigest } from './realmDigest.js';
import { pathParamsOf, routeName, urlOf } from './routeTable.js';
import type { TestServer } from './server.js';
import { StatusCounts } from './statusCounts.js';
import { assertZulipError } from './zulipError.js';

export const callers = ['no credentials', 'malformed header', 'wrong key', 'deactivated', 'bot', 'webhook bot', 'guest', 'member', 'moderator', 'administrator', 'owner', 'another realm'] as const;
export type Caller = (typeof callers)[number];

interface Answer {
  status: number;
  code: string;
  msg?: string;
}

/** What a caller gets from a route of the given auth kind. */
export function expectedAnswer({ auth, upload, incomingWebhookBots }: Pick<Route, 'auth' | 'upload' | 'incomingWebhookBots'>, caller: Caller): Answer {
  const admitted: Answer = { status: 400, code: 'BAD_REQUEST', msg: upload ? 'You must specify a file to upload' : 'Malformed JSON' };
  if (auth === 'none') return admitted;
  if (caller === 'no credentials' || caller === 'malformed header') return { status: 401, code: 'UNAUTHORIZED' };
  if (caller === 'wrong key' || caller === 'another realm') return { status: 401, code: 'INVALID_API_KEY' };
  if (caller === 'deactivated') return { status: 401, code: 'USER_DEACTIVATED' };
  if (caller === 'webhook bot' && auth !== 'webhook' && !incomingWebhookBots) return { status: 400, code: 'BAD_REQUEST', msg: 'This API is not available to incoming webhook bots.' };
  if (auth === 'admin' && caller !== 'administrator' && caller !== 'owner') return { status: 400, code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization administrator' };
  if (auth === 'human' && caller === 'bot') return { status: 400, code: 'BAD_REQUEST', msg: 'This endpoint does not accept bot requests.' };
  return admitted;
}

const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

/** Authorization headers that are not HTTP Basic credentials: no value, not base64, no colon. */
export const malformedHeaders = ['Basic', 'Basic !!!', basic('no-colon-here'), `Basic ${'A'.repeat(10_000)}`, 'Basic a b c'];

/** The headers a caller sends, one set per way of being that caller (`thorough`: all of them). */
export function headersOf(cast: Cast, caller: Caller, thorough: boolean): Record<string, string>[] {
  const { users, elsewhere } = cast;
  const member = users.member.credentials!;
  const administrator = users.administrator.credentials!;
  switch (caller) {
    case 'no credentials':
      return [{}];
    case 'malformed header':
      return (thorough ? malformedHeaders : malformedHeaders.slice(1, 2)).map((header) => ({ Authorization: header }));
    case 'wrong key': {
      // A made-up key, another user's key, an empty key, someone's key under no one's address, NULs.
      const keys = [`${member.email}:${'x'.repeat(32)}`, `${member.email}:${administrator.apiKey}`, `${member.email}:`, `nobody@zulip.com:${member.apiKey}`, '\u0000:\u0000'];
      return (thorough ? keys : keys.slice(0, 1)).map((text) => ({ Authorization: basic(text) }));
    }
    case 'another realm': {
      // Their key at this realm's host, and this realm's administrator at theirs.
      const elsewhereHost = elsewhere.owner.host!;
      const both = [users.member.withCredentials(elsewhere.owner.credentials).identity(), { ...users.administrator.authHeader(), Host: elsewhereHost }];
      return thorough ? both : both.slice(0, 1);
    }
    default:
      return [users[caller].identity()];
  }
}

const pathValues = (route: Route): Record<string, string | number> =>
  Object.fromEntries(pathParamsOf(route).map(({ name, integer }) => [name, integer ? 1 : name === 'integration' ? 'json' : 'hamlet@zulip.com']));

/** Sends every route × caller (× way of being that caller) and checks each answer, and that all
 * of them, refused one way or another, left both realms as they were. */
export async function checkMatrix(server: TestServer, cast: Cast, thorough: boolean): Promise<StatusCounts> {
  const observers = [
    { realm: server.parley.realms.forHost('')!, userId: cast.ids.owner },
    { realm: cast.elsewhere.realm, userId: cast.elsewhere.ownerId },
  ];
  const before = await realmDigest(observers);
  const statuses = new StatusCounts();
  for (const route of routes) {
    const path = urlOf(route, pathValues(route));
    for (const caller of callers) {
      const expected = expectedAnswer(route, caller);
      for (const headers of headersOf(cast, caller, thorough)) {
        const response = await sendRaw(server.baseUrl, { method: route.method, path, headers: { ...headers, 'Content-Type': 'application/json' }, body: '{' });
        statuses.add(response.status);
        const label = `${routeName(route)} (${route.auth}) as ${caller} ${JSON.stringify(headers).slice(0, 80)}`;
        const body = assertZulipError(response, label);
        assert.equal({ status: response.status, code: body.code, ...(expected.msg === undefined ? {} : { msg: body.msg }) }, expected, label);
      }
    }
  }
  assertSameState(await realmDigest(observers), before, 'the refused requests of the matrix changed a realm');
  return statuses;
}
