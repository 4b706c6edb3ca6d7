export default {
  type: 'object',
  properties: { alert_words: { type: 'array', items: { type: 'string' } } },
  required: ['alert_words'],
  additionalProperties: false,
} as const;
