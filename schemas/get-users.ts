export default {
  type: 'object',
  properties: {
    client_gravatar: { type: 'boolean', default: true },
    include_custom_profile_fields: { type: 'boolean', default: false },
  },
  additionalProperties: false,
} as const;
