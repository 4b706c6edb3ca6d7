export default {
  type: 'object',
  properties: { token: { type: 'string' } },
  additionalProperties: false,
} as const;
