// Sentry through HTTP: issues created, resolved, assigned and ignored, alerts' events (an exception
// with the code where it was raised, a message), and the legacy plugin's payload, each under the
// issue's or event's title; the Raven SDKs' old events are unsupported.
import { suite } from 'uvu';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture } from '../helpers/webhooks.js';
import { fixtureTable, refusals } from './fixtureTable.js';

const sentry = suite<{ server: TestServer }>('Sentry webhooks');

sentry.before(async (context) => {
  context.server = await startTestServer();
});
sentry.after(async ({ server }) => server.stop());

const invalidState = 'Exception: program has entered an invalid state.';

fixtureTable(sentry, 'sentry', [
  { fixture: 'issue_created_for_message', topic: 'A simple message-based issue.', facts: ['**New issue created**: A simple message-based issue.', '**Level**: info', '**Last seen**: 2020-04-28 14:05:04', '**Assignee**: no one'] },
  { fixture: 'issue_resolved', topic: invalidState, facts: [`Issue **${invalidState}** was resolved by **Hemanth V. Alluri**.`] },
  { fixture: 'issue_assigned_to_team', topic: invalidState, facts: [`Issue **${invalidState}** was assigned to **team lone-wolf** by **Hemanth V. Alluri**.`] },
  {
    fixture: 'event_for_exception_python',
    topic: 'ZeroDivisionError: division by zero',
    facts: ['**New exception**: [ZeroDivisionError: division by zero](https://sentry.io/organizations/', '**Level**: error', '**Time**: 2020-04-28 13:56:05', '**File**: exception-trigger.py', '```python\n', 'division_by_zero = 1 / 0  # ← here'],
  },
  { fixture: 'event_for_message_python', topic: 'This is an example message.', facts: ['**New message event**: [This is an example message.](https://sentry.io/', '**Level**: info'] },
  { fixture: 'exception_message', topic: 'zulip', facts: ['New [issue](https://sentry.io/zulip/zulip/issues/156699934/) (level: ERROR)', '```quote\nThis is an example python exception\n```'] },
]);

const raven = JSON.parse(fixture('sentry', 'event_for_message_python')) as { data: { event: Record<string, unknown> } };
raven.data.event.version = '5';
const { title: _, ...untitled } = (JSON.parse(fixture('sentry', 'event_for_message_python')) as typeof raven).data.event;
refusals(sentry, 'sentry', {
  webhookName: 'Sentry',
  unsupported: { body: raven, eventType: 'Raven SDK' },
  malformed: { data: { event: untitled } },
});

sentry.run();
