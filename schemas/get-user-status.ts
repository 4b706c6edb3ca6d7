export default {
  type: 'object',
  properties: { user_id: { type: 'integer' } },
  required: ['user_id'],
  additionalProperties: false,
} as const;
