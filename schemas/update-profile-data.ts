export default {
  type: 'object',
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          value: { type: ['string', 'array', 'null'], items: { type: 'integer' } },
        },
        required: ['id', 'value'],
      },
    },
  },
  required: ['data'],
  additionalProperties: false,
} as const;
