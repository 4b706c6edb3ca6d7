export default {
  type: 'object',
  properties: { fragment: { type: 'string' }, is_pinned: { type: 'boolean' }, name: { type: 'string' } },
  required: ['fragment'],
  additionalProperties: false,
} as const;
