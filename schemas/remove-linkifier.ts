export default {
  type: 'object',
  properties: { filter_id: { type: 'integer' } },
  required: ['filter_id'],
  additionalProperties: false,
} as const;
