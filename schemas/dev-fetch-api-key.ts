export default {
  type: 'object',
  properties: { username: { type: 'string' } },
  required: ['username'],
  additionalProperties: false,
} as const;
