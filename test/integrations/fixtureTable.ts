// One test per row of an integration's fixture table: the fixture posted (with the row's headers)
// makes one message under the expected topic whose Markdown holds each expected fact.
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from '../helpers/server.js';
import { fixture, postedBy, postFixture, postWebhook, webhookBot } from '../helpers/webhooks.js';

export interface FixtureCase {
  fixture: string;
  topic: string;
  facts: string[];
  headers?: Record<string, string>;
}

export function fixtureTable(test: Test<{ server: TestServer }>, integration: string, cases: readonly FixtureCase[]): void {
  for (const row of cases) {
    test(`${row.fixture} posts under ${row.topic}`, async ({ server }) => {
      const hamlet = await server.as('hamlet@zulip.com');
      const bot = await webhookBot(hamlet);
      const posted = await postFixture(server, hamlet, bot, integration, { body: fixture(integration, row.fixture), ...(row.headers ? { headers: row.headers } : {}) });
      assert.is(posted.topic, row.topic);
      for (const fact of row.facts) assert.ok(posted.content.includes(fact), `${fact} in ${posted.content}`);
    });
  }
}

export interface Refusals {
  /** The display name the error names. */
  webhookName: string;
  /** A body whose event type the integration does not describe, and that type. */
  unsupported?: { body: unknown; eventType: string };
  /** Valid JSON lacking a field the integration needs. */
  malformed: unknown;
}

/** One test: an unsupported event type answers 200 with Zulip's error, a payload lacking a needed
 * field answers 400, and neither posts anything. */
export function refusals(test: Test<{ server: TestServer }>, integration: string, refused: Refusals): void {
  test('an event type it does not describe is unsupported; a payload lacking a needed field is a 400; neither posts', async ({ server }) => {
    const hamlet = await server.as('hamlet@zulip.com');
    const bot = await webhookBot(hamlet);
    if (refused.unsupported) {
      const response = await postWebhook(server, integration, bot, { body: JSON.stringify(refused.unsupported.body), query: { stream: 'Verona' } });
      assert.is(response.status, 200);
      assert.equal({ ...response.body, msg: undefined }, { result: 'error', msg: undefined, code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', webhook_name: refused.webhookName, event_type: refused.unsupported.eventType });
    }
    const malformed = await postWebhook(server, integration, bot, { body: JSON.stringify(refused.malformed), query: { stream: 'Verona' } });
    assert.is(malformed.status, 400, JSON.stringify(malformed.body));
    assert.equal(await postedBy(hamlet, bot.id), []);
  });
}
