// An incoming webhook's URL parameters (/api/v1/external/<integration>): Zulip's, and those
// integrations document of their own (each integration's `params`; test/webhooks.test.ts checks
// every one is here). The body is the service's and is not among them.
export default {
  type: 'object',
  properties: {
    integration: { type: 'string' },
    api_key: { type: 'string' },
    stream: { type: 'string' },
    topic: { type: 'string' },
    only_events: { type: 'array', items: { type: 'string' } },
    exclude_events: { type: 'array', items: { type: 'string' } },
    branches: { type: 'string' },
    ignore_private_repositories: { type: 'boolean' },
    name: { type: 'string' },
    desc: { type: 'string' },
  },
  required: ['integration'],
  additionalProperties: false,
} as const;
