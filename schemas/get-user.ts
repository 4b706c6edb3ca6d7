export default {
  type: 'object',
  properties: {
    user_id: { type: 'integer' },
    client_gravatar: { type: 'boolean', default: true },
    include_custom_profile_fields: { type: 'boolean', default: false },
  },
  required: ['user_id'],
  additionalProperties: false,
} as const;
