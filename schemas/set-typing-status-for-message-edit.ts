export default {
  type: 'object',
  properties: {
    message_id: { type: 'integer' },
    op: { enum: ['start', 'stop'] },
  },
  required: ['message_id', 'op'],
  additionalProperties: false,
} as const;
