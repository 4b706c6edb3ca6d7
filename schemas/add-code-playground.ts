export default {
  type: 'object',
  properties: { name: { type: 'string' }, pygments_language: { type: 'string' }, url_template: { type: 'string' } },
  required: ['name', 'pygments_language', 'url_template'],
  additionalProperties: false,
} as const;
