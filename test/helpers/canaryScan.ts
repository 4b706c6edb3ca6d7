// The canary scan: users without access to a private conversation — a guest, a member who is not
// subscribed, another realm's owner (at their own realm's host), and with `thorough` a moderator
// and a bot — listen to event queues of every type while the canary is planted and edited, then
// register again and call every GET route of the route table, with the canary's IDs and names as
// parameters. No trace of the canary may reach them: not in an event, a register state or an
// answer, and no route addressed by the private channel's or a canary message's ID may answer
// them with success.
import * as assert from 'uvu/assert';
import { routes } from '../../src/api/routes.js';
import type { Route } from '../../src/http/route.js';
import { CONTROL, plantCanary, tracesOf, type Canary } from './canary.js';
import type { Cast } from './cast.js';
import { sendRaw, type ApiClient, type Params } from './client.js';
import { paramSchemaOf, pathParamsOf, propertiesOf, routeName, urlOf, type PropertySchema } from './routeTable.js';
import { StatusCounts } from './statusCounts.js';
import { encodeRequest, type Entry } from './wire.js';

interface Outsider {
  label: string;
  client: ApiClient;
  queueId: string;
  /** Whether the outsider is of the canary's realm (and so hears what all of it hears). */
  sameRealm: boolean;
  /** Whether they may follow every public channel (all_public_streams: not a guest, as in Zulip). */
  allPublic: boolean;
}

export interface CanaryFigures {
  statuses: StatusCounts;
  events: number;
}

async function ok(client: ApiClient, method: string, path: string, params: Params = {}): Promise<Record<string, unknown>> {
  const response = await client.call(method, path, params);
  assert.is(response.status, 200, `${client.email} ${method} ${path}: ${JSON.stringify(response.body)}`);
  return response.body;
}

function assertNoTraces(canary: Canary, label: string, text: string, value: unknown, echoed?: readonly string[]): void {
  const traces = tracesOf(canary, text, value, echoed);
  assert.equal(traces, [], `${label} shows the canary: ${traces.join('; ')}`);
}

/** The narrows a message route is asked with: by the channel's ID, and with `thorough` its name,
 * the topic, a search for the token, the direct messages with the member. */
function narrows(canary: Canary, memberId: number, thorough: boolean): unknown[] {
  const byId = [{ operator: 'channel', operand: canary.channelId }];
  if (!thorough) return [byId];
  return [byId, [{ operator: 'channel', operand: canary.channelName }], [{ operator: 'channel', operand: canary.channelId }, { operator: 'topic', operand: canary.topic }], [{ operator: 'search', operand: canary.token }], [{ operator: 'dm', operand: [memberId] }]];
}

/** A parameter's value in a scan, by its name (the canary's where it names a channel, message or
 * topic), else by its type; undefined: left out. */
function valueFor(name: string, property: PropertySchema, canary: Canary, outsider: Outsider, memberId: number, all: boolean): unknown {
  if (/stream_id$/.test(name)) return canary.channelId;
  if (/message_id$/.test(name)) return canary.messageIds[0];
  if (/^(topic|topic_name)$/.test(name)) return canary.topic;
  if (name === 'stream') return canary.channelName;
  if (name === 'user_id') return memberId;
  if (name === 'queue_id') return outsider.queueId;
  if (name === 'last_event_id') return -1;
  if (name === 'dont_block') return true;
  if (name === 'anchor') return 'newest';
  if (/^num_(before|after)$/.test(name)) return 100;
  const type = Array.isArray(property.type) ? property.type[0] : property.type;
  if (type === 'boolean') return all ? true : undefined;
  if (type === 'integer') return canary.channelId;
  if (type === 'array') return [canary.channelId];
  return type === 'object' ? {} : canary.topic;
}

/** The parameter sets a GET route is scanned with: required ones only, and every one. */
function paramSets(route: Route, canary: Canary, outsider: Outsider, memberId: number, thorough: boolean): Params[] {
  const schema = paramSchemaOf(route);
  const inPath = new Set(pathParamsOf(route).map(({ name }) => name));
  const required = new Set(schema.required ?? []);
  const sets = [false, true].map((all) =>
    Object.fromEntries(
      propertiesOf(schema)
        .filter(([name]) => !inPath.has(name) && (all || required.has(name) || name === 'dont_block'))
        .map(([name, property]) => [name, valueFor(name, property, canary, outsider, memberId, all)])
        .filter(([, value]) => value !== undefined),
    ),
  );
  if (!('narrow' in schema.properties)) return sets;
  return sets.flatMap((params) => narrows(canary, memberId, thorough).map((narrow) => ({ ...params, narrow })));
}

const stringsIn = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : Array.isArray(value) ? value.flatMap(stringsIn) : typeof value === 'object' && value !== null ? Object.values(value).flatMap(stringsIn) : [];

/** Path values: the canary's IDs where a channel or message is named, the member elsewhere. */
function pathSets(route: Route, canary: Canary, memberId: number, memberEmail: string): Record<string, string | number>[] {
  const params = pathParamsOf(route);
  const messageParam = params.some(({ name }) => name === 'message_id');
  return (messageParam ? canary.messageIds : [canary.messageIds[0]!]).map((messageId) =>
    Object.fromEntries(params.map(({ name, integer }) => [name, name === 'stream_id' ? canary.channelId : name === 'message_id' ? messageId : integer ? memberId : memberEmail])),
  );
}

async function scanRoute(route: Route, canary: Canary, outsider: Outsider, cast: Cast, statuses: StatusCounts, thorough: boolean): Promise<void> {
  const namesCanary = pathParamsOf(route).some(({ name }) => name === 'stream_id' || name === 'message_id');
  for (const path of pathSets(route, canary, cast.ids.member, cast.users.member.email)) {
    for (const params of paramSets(route, canary, outsider, cast.ids.member, thorough)) {
      const entries: Entry[] = Object.entries(params).map(([name, json]) => [name, { json }]);
      const response = await sendRaw(outsider.client.baseUrl, encodeRequest('GET', urlOf(route, path), entries, 'query', outsider.client.identity()));
      statuses.add(response.status);
      const label = `${outsider.label}: ${routeName(route)} ${JSON.stringify(path)} ${JSON.stringify(params).slice(0, 200)}`;
      assert.ok(response.status < 500, `${label}: ${response.status} ${response.text.slice(0, 300)}`);
      const success = response.status < 300;
      assert.ok(!(success && namesCanary), `${label}: answered ${response.status} about a private channel or message: ${response.text.slice(0, 300)}`);
      const json = success && response.headers['content-type']?.includes('json') ? (JSON.parse(response.text) as unknown) : undefined;
      assertNoTraces(canary, label, response.text, json, [...stringsIn(params), ...stringsIn(path)]);
    }
  }
}

/** Plants and edits the canary while outsiders listen, then scans what each of them can get. */
export async function canaryScan(cast: Cast, othello: ApiClient, thorough: boolean): Promise<CanaryFigures> {
  const { users, elsewhere } = cast;
  const who: [string, ApiClient][] = [['guest', users.guest], ['unsubscribed member', othello], ['another realm', elsewhere.owner]];
  if (thorough) who.push(['moderator', users.moderator], ['bot', users.bot]);
  const outsiders: Outsider[] = [];
  for (const [label, client] of who) {
    const allPublic = client !== users.guest;
    const queueId = String((await ok(client, 'POST', '/register', allPublic ? { all_public_streams: true } : {})).queue_id);
    outsiders.push({ label, client, queueId, sameRealm: client !== elsewhere.owner, allPublic });
  }
  const subscriber = (await ok(users.owner, 'GET', '/users/prospero@zulip.com')).user as { user_id: number };
  const canary = await plantCanary(cast, subscriber.user_id);

  const statuses = new StatusCounts();
  let events = 0;
  for (const outsider of outsiders) {
    const received = (await ok(outsider.client, 'GET', '/events', { queue_id: outsider.queueId, last_event_id: -1, dont_block: true })).events as unknown[];
    events += received.length;
    assert.is(JSON.stringify(received).includes(CONTROL), outsider.sameRealm, `${outsider.label} heard of the realm's public status`);
    assertNoTraces(canary, `${outsider.label}'s events`, JSON.stringify(received), received);
    for (const params of [{}, { all_public_streams: outsider.allPublic, include_subscribers: true }]) {
      const state = await ok(outsider.client, 'POST', '/register', params);
      assertNoTraces(canary, `${outsider.label}'s register ${JSON.stringify(params)}`, JSON.stringify(state), state);
      await ok(outsider.client, 'DELETE', '/events', { queue_id: state.queue_id });
    }
    for (const route of routes.filter(({ method }) => method === 'GET')) await scanRoute(route, canary, outsider, cast, statuses, thorough);
  }
  return { statuses, events };
}
