export default {
  type: 'object',
  properties: {
    email: { type: 'string', maxLength: 254 },
    password: { type: 'string', maxLength: 1024 },
    full_name: { type: 'string' },
  },
  required: ['email', 'full_name', 'password'],
  additionalProperties: false,
} as const;
