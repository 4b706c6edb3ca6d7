// Gitea's webhook: each fixture's topic and facts, the URL's `branches`, and the refusals every forge
// shares. (Forgejo, which sends the same payloads, is tested in forgejo.test.ts.)
import { forgeSuite, without } from './forge.js';
import { giteaCases } from './giteaCases.js';

const gitea = forgeSuite({
  integration: 'gitea',
  displayName: 'Gitea',
  header: 'X-Gitea-Event',
  cases: giteaCases,
  unsupported: { event: 'wiki', body: JSON.stringify({ action: 'created' }), eventType: 'wiki' },
  lacking: { event: 'issues', body: without('gitea', 'issues__opened', 'issue.number'), field: 'payload.issue.number' },
  branches: { fixture: 'push__5_commits', event: 'push', naming: 'changes,d', notNaming: 'changes,development' },
});

gitea.run();
