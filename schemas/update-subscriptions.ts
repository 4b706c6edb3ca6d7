export default {
  type: 'object',
  properties: {
    delete: { type: 'array', items: { type: 'string' } },
    add: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, color: { type: 'string' }, description: { type: 'string' } },
        required: ['name'],
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
} as const;
