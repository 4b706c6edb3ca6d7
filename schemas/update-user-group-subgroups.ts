export default {
  type: 'object',
  properties: {
    user_group_id: { type: 'integer' },
    add: { type: 'array', items: { type: 'integer' } },
    delete: { type: 'array', items: { type: 'integer' } },
  },
  required: ['user_group_id'],
  additionalProperties: false,
} as const;
