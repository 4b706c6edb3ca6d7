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
    // Far more patterns, and longer, than any integration's event types need.
    only_events: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 200 } },
    exclude_events: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 200 } },
    branches: { type: 'string' },
    ignore_private_repositories: { type: 'boolean' },
    name: { type: 'string' },
    desc: { type: 'string' },
  },
  required: ['integration'],
  additionalProperties: false,
} as const;
