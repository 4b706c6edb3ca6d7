export default {
  type: 'object',
  properties: {
    message_id: { type: 'integer' },
    scheduled_delivery_timestamp: { type: 'integer' },
    note: { type: 'string' },
  },
  required: ['message_id', 'scheduled_delivery_timestamp'],
  additionalProperties: false,
} as const;
