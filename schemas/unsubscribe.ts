export default {
  type: 'object',
  properties: {
    subscriptions: { type: 'array', items: { type: 'string' } },
    principals: { type: 'array', items: { type: ['integer', 'string'] } },
  },
  required: ['subscriptions'],
  additionalProperties: false,
} as const;
