export default {
  type: 'object',
  properties: {
    type: { enum: ['direct', 'channel', 'stream', 'private'] },
    to: { type: ['integer', 'array'], items: { type: 'integer' } },
    topic: { type: 'string' },
    content: { type: 'string' },
    scheduled_delivery_timestamp: { type: 'integer' },
    read_by_sender: { type: 'boolean' },
  },
  required: ['type', 'to', 'content', 'scheduled_delivery_timestamp'],
  additionalProperties: false,
} as const;
