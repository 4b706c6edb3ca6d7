export default {
  type: 'object',
  properties: {
    url: { type: 'string' },
    size: { type: 'string', enum: ['full', 'thumbnail'] },
  },
  required: ['url'],
  additionalProperties: false,
} as const;
