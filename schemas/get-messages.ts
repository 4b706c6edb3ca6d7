import { narrow } from './fragments.js';

export default {
  type: 'object',
  properties: {
    anchor: { type: 'string', pattern: '^(newest|oldest|first_unread|\\d+)$' },
    num_before: { type: 'integer', minimum: 0 },
    num_after: { type: 'integer', minimum: 0 },
    include_anchor: { type: 'boolean', default: true },
    narrow,
    client_gravatar: { type: 'boolean', default: true },
    apply_markdown: { type: 'boolean', default: true },
    use_first_unread_anchor: { type: 'boolean', default: false },
    message_ids: { type: 'array', items: { type: 'integer', minimum: 0 } },
    allow_empty_topic_name: { type: 'boolean', default: false },
  },
  additionalProperties: false,
} as const;
