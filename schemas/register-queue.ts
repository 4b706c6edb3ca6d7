import { narrow } from './fragments.js';

export default {
  type: 'object',
  properties: {
    event_types: { type: ['array', 'null'], items: { type: 'string' } },
    fetch_event_types: { type: ['array', 'null'], items: { type: 'string' } },
    narrow,
    all_public_streams: { type: 'boolean', default: false },
    client_gravatar: { type: 'boolean', default: true },
    apply_markdown: { type: 'boolean', default: false },
    include_subscribers: { enum: ['true', 'false', 'partial', true, false], default: false },
    client_capabilities: { type: 'object', additionalProperties: { type: 'boolean' } },
    slim_presence: { type: 'boolean', default: false },
    presence_history_limit_days: { type: 'integer' },
    lifespan_secs: { type: 'integer', minimum: 0 },
  },
  additionalProperties: false,
} as const;
