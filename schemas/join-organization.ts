// POST /join/{key}/: the invitation page's form, creating the account.
export default {
  type: 'object',
  properties: {
    key: { type: 'string', maxLength: 64 },
    email: { type: 'string', maxLength: 254 },
    full_name: { type: 'string', maxLength: 1000 },
    password: { type: 'string', maxLength: 1024 },
  },
  required: ['key', 'email', 'full_name', 'password'],
  additionalProperties: false,
} as const;
