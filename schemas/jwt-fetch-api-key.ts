export default {
  type: 'object',
  properties: {
    token: { type: 'string' },
    include_profile: { type: 'boolean', default: false },
  },
  required: ['token'],
  additionalProperties: false,
} as const;
