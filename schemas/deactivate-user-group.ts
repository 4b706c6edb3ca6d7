export default {
  type: 'object',
  properties: { user_group_id: { type: 'integer' } },
  required: ['user_group_id'],
  additionalProperties: false,
} as const;
