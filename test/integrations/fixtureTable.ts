// One test per row of an integration's fixture table: the fixture posted (with the row's headers)
// makes one message under the expected topic whose Markdown holds each expected fact.
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from '../helpers/server.js';
import { fixture, postFixture, webhookBot } from '../helpers/webhooks.js';

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
