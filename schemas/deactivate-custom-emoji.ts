export default {
  type: 'object',
  properties: { emoji_name: { type: 'string' } },
  required: ['emoji_name'],
  additionalProperties: false,
} as const;
