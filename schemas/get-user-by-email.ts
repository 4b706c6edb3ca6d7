export default {
  type: 'object',
  properties: {
    email: { type: 'string' },
    client_gravatar: { type: 'boolean', default: true },
    include_custom_profile_fields: { type: 'boolean', default: false },
  },
  required: ['email'],
  additionalProperties: false,
} as const;
