// What every git forge's integration test checks alike: each fixture posted with its event header
// gives its topic and the facts its message must hold; an event type the integration does not
// support answers 200 UNSUPPORTED_WEBHOOK_EVENT_TYPE and posts nothing; a request without the
// event header is a 400 naming it; valid JSON lacking a needed field is a 400 and posts nothing.
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture, postedBy, postFixture, postWebhook, webhookBot, type Posted } from '../helpers/webhooks.js';

export interface FixtureCase {
  /** The fixture's name in test/fixtures/webhooks/<integration>/. */
  fixture: string;
  /** The event header's value, as the service sends it with this payload. */
  event: string;
  topic: string;
  /** Text the message must contain (links, names, numbers, states). */
  facts: readonly string[];
  /** Further checks of the message. */
  check?: (posted: Posted) => void;
}

export interface Forge {
  /** The URL's integration name; fixtures are read from the folder of `fixtures` (default: the same). */
  integration: string;
  fixtures?: string;
  displayName: string;
  header: string;
  cases: readonly FixtureCase[];
  /** A header value the integration does not support, and the event type it is reported as. */
  unsupported: { event: string; body: string; eventType: string };
  /** A fixture whose body lacks a field the integration needs (posted with `event`), and that
   * field's path as the error names it. */
  lacking: { event: string; body: string; field: string };
  /** A push fixture and two `branches` values: one naming its branch (posts), one not (posts nothing). */
  branches?: { fixture: string; event: string; naming: string; notNaming: string };
}

/** A suite with its own test server, its fixture cases and the refusals every forge shares. */
export function forgeSuite(forge: Forge): Test<{ server: TestServer }> {
  const test = suite<{ server: TestServer }>(forge.displayName);
  test.before(async (context) => {
    context.server = await startTestServer();
  });
  test.after(async ({ server }) => server.stop());

  for (const { fixture: name, event, topic, facts, check } of forge.cases) {
    test(`${name} (${event}): ${topic}`, async ({ server }) => {
      const hamlet = await server.as('hamlet@zulip.com');
      const bot = await webhookBot(hamlet);
      const posted = await postFixture(server, hamlet, bot, forge.integration, { body: fixture(forge.fixtures ?? forge.integration, name), headers: { [forge.header]: event } });
      assert.is(posted.topic, topic);
      for (const fact of facts) assert.ok(posted.content.includes(fact), `${JSON.stringify(fact)} in:\n${posted.content}`);
      check?.(posted);
    });
  }

  test('an event type it does not support: 200 UNSUPPORTED_WEBHOOK_EVENT_TYPE, nothing posted', async ({ server }) => {
    const hamlet = await server.as('hamlet@zulip.com');
    const bot = await webhookBot(hamlet);
    const response = await postWebhook(server, forge.integration, bot, { body: forge.unsupported.body, query: { stream: 'Verona' }, headers: { [forge.header]: forge.unsupported.event } });
    assert.is(response.status, 200);
    assert.is(response.body.result, 'error');
    assert.is(response.body.code, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE');
    assert.is(response.body.webhook_name, forge.displayName);
    assert.is(response.body.event_type, forge.unsupported.eventType);
    assert.equal(await postedBy(hamlet, bot.id), []);
  });

  test('without the event header: 400 MISSING_HTTP_EVENT_HEADER naming it', async ({ server }) => {
    const hamlet = await server.as('hamlet@zulip.com');
    const bot = await webhookBot(hamlet);
    const response = await postWebhook(server, forge.integration, bot, { body: forge.lacking.body, query: { stream: 'Verona' } });
    assert.is(response.status, 400);
    assert.is(response.body.code, 'MISSING_HTTP_EVENT_HEADER');
    assert.ok(String(response.body.msg).includes(forge.header), String(response.body.msg));
    assert.equal(await postedBy(hamlet, bot.id), []);
  });

  test('valid JSON lacking a needed field: 400, nothing posted', async ({ server }) => {
    const hamlet = await server.as('hamlet@zulip.com');
    const bot = await webhookBot(hamlet);
    const response = await postWebhook(server, forge.integration, bot, { body: forge.lacking.body, query: { stream: 'Verona' }, headers: { [forge.header]: forge.lacking.event } });
    assert.is(response.status, 400, JSON.stringify(response.body));
    assert.is(response.body.result, 'error');
    assert.ok(String(response.body.msg).includes(forge.lacking.field), String(response.body.msg));
    assert.equal(await postedBy(hamlet, bot.id), []);
  });

  const { branches } = forge;
  if (branches) {
    test('`branches` posts pushes to the branches it names only', async ({ server }) => {
      const hamlet = await server.as('hamlet@zulip.com');
      const bot = await webhookBot(hamlet);
      for (const [value, count] of [[branches.notNaming, 0], [branches.naming, 1]] as const) {
        const body = fixture(forge.fixtures ?? forge.integration, branches.fixture);
        const response = await postWebhook(server, forge.integration, bot, { body, query: { stream: 'Verona', branches: value }, headers: { [forge.header]: branches.event } });
        assert.equal(response.body, { result: 'success', msg: '' });
        assert.is((await postedBy(hamlet, bot.id, 10)).length, count, value);
      }
    });
  }

  return test;
}

/** A fixture's JSON with some fields removed (`a.b` removes b inside a), for the malformed cases. */
export function without(integration: string, name: string, ...paths: string[]): string {
  const value = JSON.parse(fixture(integration, name)) as Record<string, unknown>;
  for (const path of paths) {
    const keys = path.split('.');
    const parent = keys.slice(0, -1).reduce<Record<string, unknown>>((object, key) => object[key] as Record<string, unknown>, value);
    delete parent[keys.at(-1)!];
  }
  return JSON.stringify(value);
}
