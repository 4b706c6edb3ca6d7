export default {
  type: 'object',
  properties: { ordered_linkifier_ids: { type: 'array', items: { type: 'integer' } } },
  required: ['ordered_linkifier_ids'],
  additionalProperties: false,
} as const;
