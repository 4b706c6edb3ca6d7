export default {
  type: 'object',
  properties: {
    queue_id: { type: 'string' },
    last_event_id: { type: 'integer', default: -1 },
    dont_block: { type: 'boolean', default: false },
  },
  required: ['queue_id'],
  additionalProperties: false,
} as const;
