export default {
  type: 'object',
  properties: {
    message_id: { type: 'integer' },
    allow_empty_topic_name: { type: 'boolean', default: false },
  },
  required: ['message_id'],
  additionalProperties: false,
} as const;
