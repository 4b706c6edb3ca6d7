export default {
  type: 'object',
  properties: {
    message_id: { type: 'integer' },
    apply_markdown: { type: 'boolean', default: true },
    allow_empty_topic_name: { type: 'boolean', default: false },
  },
  required: ['message_id'],
  additionalProperties: false,
} as const;
