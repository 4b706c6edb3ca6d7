// Forgejo's webhook: Gitea's payloads under X-Forgejo-Event, posted by the Forgejo integration.
import { forgeSuite, without } from './forge.js';
import { giteaCases } from './giteaCases.js';

const forgejo = forgeSuite({
  integration: 'forgejo',
  fixtures: 'gitea',
  displayName: 'Forgejo',
  header: 'X-Forgejo-Event',
  cases: giteaCases.filter((c) => ['push__5_commits', 'pull_request__merged', 'issue_comment__new'].includes(c.fixture)),
  unsupported: { event: 'wiki', body: JSON.stringify({ action: 'created' }), eventType: 'wiki' },
  lacking: { event: 'pull_request', body: without('gitea', 'pull_request__opened', 'pull_request.html_url'), field: 'payload.pull_request.html_url' },
});

forgejo.run();
