export default {
  type: 'object',
  properties: {
    messages: { type: 'array', items: { type: 'integer' } },
    op: { enum: ['add', 'remove'] },
    flag: { type: 'string' },
  },
  required: ['messages', 'op', 'flag'],
  additionalProperties: false,
} as const;
