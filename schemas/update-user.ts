export default {
  type: 'object',
  properties: {
    user_id: { type: 'integer' },
    full_name: { type: 'string' },
    role: { type: 'integer' },
  },
  required: ['user_id'],
  additionalProperties: false,
} as const;
