export default {
  type: 'object',
  properties: { stream: { type: 'string' } },
  required: ['stream'],
  additionalProperties: false,
} as const;
