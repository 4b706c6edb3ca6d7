export default {
  type: 'object',
  properties: {
    user_group_id: { type: 'integer' },
    name: { type: 'string' },
    description: { type: 'string' },
  },
  required: ['user_group_id'],
  additionalProperties: false,
} as const;
