export default {
  type: 'object',
  properties: { playground_id: { type: 'integer' } },
  required: ['playground_id'],
  additionalProperties: false,
} as const;
