export default {
  type: 'object',
  properties: { saved_snippet_id: { type: 'integer' }, title: { type: 'string' }, content: { type: 'string' } },
  required: ['saved_snippet_id'],
  additionalProperties: false,
} as const;
