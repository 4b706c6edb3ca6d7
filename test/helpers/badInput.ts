// Sends generated bad requests to every route of the route table (src/api/routes.ts) and checks
// each answer: never a 5xx, every error in Zulip's shape, and the realm's state (a digest of what
// the acting users see) unchanged by every refused request and every GET. An accepted write moves
// the baseline on. The other realm, whose IDs the requests also name, must not change at all
// (checked after each route).
import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { routes } from '../../src/api/routes.js';
import { actors, badRequests, describeRequest, toRawRequest, type BadRequest } from './badRequests.js';
import { assembleCast, roleOf, type Cast } from './cast.js';
import { sendRaw, type RawResponse } from './client.js';
import { StatusCounts } from './statusCounts.js';
import { assertSameState, realmDigest, type Observer } from './realmDigest.js';
import type { TestServer } from './server.js';
import { gatherTargets } from './targets.js';
import { assertRefusal } from './zulipError.js';

export interface BadInputOptions {
  runsPerRoute: number;
  seed: number;
}

export interface BadInputFigures {
  /** Who sent the requests (the digest's observers). */
  cast: Cast;
  routes: number;
  statuses: StatusCounts;
  ms: number;
}

async function send(server: TestServer, cast: Cast, request: BadRequest): Promise<RawResponse> {
  try {
    return await sendRaw(server.baseUrl, toRawRequest(request, cast.users[request.actor].identity()));
  } catch (error) {
    throw new Error(`${describeRequest(request)}: no answer (${(error as Error).message})`);
  }
}

/** After an accepted write (which may have deactivated an actor, changed their role or their API
 * key, or registered event queues): the actors as they were, with their current keys and none of
 * their event queues. The owner puts them back. */
async function renewActors(server: TestServer, cast: Cast): Promise<void> {
  const realm = server.parley.realms.forHost('')!;
  const { owner } = cast.users;
  for (const actor of actors) {
    const user = (await owner.get(`/users/${cast.ids[actor]}`)).body.user as { is_active: boolean; role: number };
    if (!user.is_active) assert.is((await owner.post(`/users/${cast.ids[actor]}/reactivate`)).status, 200);
    if (user.role !== roleOf[actor]) assert.is((await owner.patch(`/users/${cast.ids[actor]}`, { role: roleOf[actor] })).status, 200);
    const client = cast.users[actor];
    const { apiKey } = await realm.ask('users.apiKey', null, { email: client.email });
    cast.users[actor] = client.withCredentials({ email: client.email, apiKey });
    server.parley.queues.deleteUserQueues(realm.realm.id, cast.ids[actor]);
  }
}

/** The acting users, whose views make the realm's digest. */
export const actorsOf = (server: TestServer, cast: Cast): Observer[] => actors.map((actor) => ({ realm: server.parley.realms.forHost('')!, userId: cast.ids[actor] }));

export async function sendBadInput(server: TestServer, options: BadInputOptions): Promise<BadInputFigures> {
  const started = performance.now();
  const cast = await assembleCast(server);
  const targets = await gatherTargets(cast);
  const digest = () => realmDigest(actorsOf(server, cast));
  const elsewhere = () => realmDigest([{ realm: cast.elsewhere.realm, userId: cast.elsewhere.ownerId }]);
  const untouched = await elsewhere();
  let baseline = await digest();
  const statuses = new StatusCounts();
  for (const [index, route] of routes.entries()) {
    const property = fc.asyncProperty(badRequests(route, targets), async (request) => {
      const response = await send(server, cast, request);
      statuses.add(response.status);
      const label = describeRequest(request);
      assert.ok(response.status < 500, `${label}: ${response.status} ${response.text.slice(0, 300)}`);
      // Otherwise the rest of the run would test nothing but authentication. (A webhook's own
      // `api_key` wins over the actor's header, so a generated one may be refused.)
      const ownKey = route.auth === 'webhook' && request.entries.some(([name]) => name === 'api_key');
      assert.ok(route.auth === 'none' || ownKey || response.status !== 401, `${label}: the acting user's credentials stopped working`);
      if (response.status >= 400) assertRefusal(route, response, label);
      if (response.status >= 400 || route.method === 'GET') {
        assertSameState(await digest(), baseline, `${label}: answered ${response.status}, yet the realm's state changed`);
      } else {
        await renewActors(server, cast);
        baseline = await digest();
      }
    });
    await fc.assert(property, { numRuns: options.runsPerRoute, seed: options.seed + index, endOnFailure: true });
    assertSameState(await elsewhere(), untouched, `requests to ${route.method} ${route.path} in one realm changed another`);
  }
  return { cast, routes: routes.length, statuses, ms: performance.now() - started };
}
