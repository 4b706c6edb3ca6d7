export default {
  type: 'object',
  properties: {
    scheduled_message_id: { type: 'integer' },
    type: { enum: ['direct', 'channel', 'stream', 'private'] },
    to: { type: ['integer', 'array'], items: { type: 'integer' } },
    topic: { type: 'string' },
    content: { type: 'string' },
    scheduled_delivery_timestamp: { type: 'integer' },
  },
  required: ['scheduled_message_id'],
  additionalProperties: false,
} as const;
