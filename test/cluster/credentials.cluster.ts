// A gateway keeps the credentials it accepted for a realm owned elsewhere (a request asks the owner
// one command, not two), and a change at the owner holds on every node as it does on one server:
// a new API key, a deactivation, a new role. A command sent on kept credentials carries them, and
// the owner runs it only if they still name the same principal.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Principal } from '../../src/auth/basic.js';
import { ApiClient } from '../helpers/client.js';
import { askOwner, demoRealmLease, withCluster, withNats } from '../helpers/cluster.js';
import { register } from '../helpers/events.js';

/** A request's status and error code, as a client sees them. */
const outcome = (response: { status: number; body: { code?: unknown } }) => [response.status, response.body.code ?? null];

test('a new API key: the old one is refused on the gateway at once, for commands and for its event queue; the new one serves', () =>
  withCluster(2, async (cluster, owner, [gateway]) => {
    const hamletOnGateway = await cluster.client(gateway, 'hamlet@zulip.com');
    const queue = await register(hamletOnGateway, { event_types: ['message'] });
    assert.is((await hamletOnGateway.get('/users/me')).status, 200);
    const hamletOnOwner = new ApiClient(owner.baseUrl, hamletOnGateway.credentials);
    const regenerated = await hamletOnOwner.post('/users/me/api_key/regenerate');
    assert.is(regenerated.status, 200, JSON.stringify(regenerated.body));

    // The event queue first: the gateway answers it alone, asking the owner nothing.
    assert.equal(outcome(await hamletOnGateway.get('/events', { queue_id: queue.queueId, last_event_id: -1, dont_block: true })), [401, 'INVALID_API_KEY']);
    assert.equal(outcome(await hamletOnGateway.get('/users/me')), [401, 'INVALID_API_KEY']);
    const renewed = new ApiClient(gateway.baseUrl, { email: 'hamlet@zulip.com', apiKey: String(regenerated.body.api_key) });
    assert.is((await renewed.get('/users/me')).body.email, 'hamlet@zulip.com');
    assert.is((await renewed.get('/events', { queue_id: queue.queueId, last_event_id: -1, dont_block: true })).status, 200);
  }));

test('a user deactivated at the owner is refused on the gateway as the owner refuses them', () =>
  withCluster(2, async (cluster, owner, [gateway]) => {
    const othelloOnGateway = await cluster.client(gateway, 'othello@zulip.com');
    const { user_id: othelloId } = (await othelloOnGateway.get('/users/me')).body as { user_id: number };
    const iagoOnOwner = await cluster.client(owner, 'iago@zulip.com');
    assert.is((await iagoOnOwner.delete(`/users/${othelloId}`)).status, 200);

    const onOwner = outcome(await new ApiClient(owner.baseUrl, othelloOnGateway.credentials).get('/users/me'));
    assert.equal(onOwner, [401, 'USER_DEACTIVATED']);
    assert.equal(outcome(await othelloOnGateway.get('/users/me')), onOwner);
    assert.equal(outcome(await othelloOnGateway.post('/messages', { type: 'stream', to: 'Verona', topic: 'gone', content: 'still here?' })), onOwner);
  }));

test('a role changed at the owner: the gateway admits and refuses administrators as the owner does', () =>
  withCluster(2, async (cluster, owner, [gateway]) => {
    const cordeliaOnGateway = await cluster.client(gateway, 'cordelia@zulip.com');
    const { user_id: cordeliaId } = (await cordeliaOnGateway.get('/users/me')).body as { user_id: number };
    const rename = (fullName: string) => cordeliaOnGateway.patch(`/users/${cordeliaId}`, { full_name: fullName });
    assert.equal(outcome(await rename('Cordelia, admin?')), [400, 'UNAUTHORIZED_PRINCIPAL']);
    const iagoOnOwner = await cluster.client(owner, 'iago@zulip.com');
    assert.is((await iagoOnOwner.patch(`/users/${cordeliaId}`, { role: 200 })).status, 200);
    assert.is((await rename('Cordelia, administrator')).status, 200);
    assert.is((await iagoOnOwner.patch(`/users/${cordeliaId}`, { role: 400 })).status, 200);
    assert.equal(outcome(await rename('Cordelia, member again')), [400, 'UNAUTHORIZED_PRINCIPAL']);
    assert.is(((await iagoOnOwner.get(`/users/${cordeliaId}`)).body.user as { full_name: string }).full_name, 'Cordelia, administrator');
  }));

test("a command on kept credentials runs only while they name the principal the gateway kept, and only at the owner it was sent to", () =>
  withCluster(2, (cluster, owner) =>
    withNats(cluster, async (nc) => {
      const iago = await cluster.client(owner, 'iago@zulip.com');
      const { user_id: iagoId } = (await iago.get('/users/me')).body as { user_id: number };
      const authorization = `Basic ${Buffer.from(`${iago.credentials!.email}:${iago.credentials!.apiKey}`).toString('base64')}`;
      const { realmId, epoch } = await demoRealmLease(nc);
      // As a gateway sends it: [index, [command, user, input], [credentials, principal], owner's epoch, ms it waits].
      const ask = (principal: Principal, sentTo: number | null = epoch) => askOwner(nc, realmId, [7, ['auth.basic', null, { authorization }], [['auth.basic', { authorization }], principal], sentTo, 5000], 2000);
      const kept = { userId: iagoId, role: 200, isBot: false, incomingWebhook: false };
      assert.equal(await ask(kept), [7, { ok: kept }, false, epoch]);
      // Kept as a member (the gateway had not heard of a promotion, say): refused, to be asked again.
      const [, stale, unvouched] = await ask({ ...kept, role: 400 });
      assert.equal([typeof stale === 'object' && 'error' in stale ? stale.error?.code : stale, unvouched], ['REALM_UNAVAILABLE', true]);
      // Sent to the owner before (none: the realm was new, so nobody runs it): not run, to be sent
      // again; to a later owner: that one's to answer, not this one's.
      assert.equal(await ask(kept, epoch - 1), [7, 'not run', false, epoch]);
      await ask(kept, epoch + 1).then(
        (answer) => assert.unreachable(`answered ${JSON.stringify(answer)}`),
        (error: Error) => assert.match(error.message, /timeout/i),
      );
    }),
  ));

test.run();
