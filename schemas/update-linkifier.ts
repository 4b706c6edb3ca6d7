export default {
  type: 'object',
  properties: {
    pattern: { type: 'string' },
    url_template: { type: 'string' },
    reverse_template: { type: ['string', 'null'] },
    alternative_url_templates: { type: 'array', items: { type: 'string' } },
    filter_id: { type: 'integer' },
  },
  required: ['filter_id', 'pattern', 'url_template'],
  additionalProperties: false,
} as const;
