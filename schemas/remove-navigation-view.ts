export default {
  type: 'object',
  properties: { fragment: { type: 'string' } },
  required: ['fragment'],
  additionalProperties: false,
} as const;
