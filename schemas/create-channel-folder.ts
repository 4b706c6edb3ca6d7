export default {
  type: 'object',
  properties: { name: { type: 'string' }, description: { type: 'string', default: '' } },
  required: ['name'],
  additionalProperties: false,
} as const;
