export default {
  type: 'object',
  properties: {
    user_group_id: { type: 'integer' },
    user_id: { type: 'integer' },
    direct_member_only: { type: 'boolean', default: false },
  },
  required: ['user_group_id', 'user_id'],
  additionalProperties: false,
} as const;
