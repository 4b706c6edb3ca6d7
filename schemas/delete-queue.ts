export default {
  type: 'object',
  properties: { queue_id: { type: 'string' } },
  required: ['queue_id'],
  additionalProperties: false,
} as const;
