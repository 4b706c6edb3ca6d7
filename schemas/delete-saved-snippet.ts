export default {
  type: 'object',
  properties: { saved_snippet_id: { type: 'integer' } },
  required: ['saved_snippet_id'],
  additionalProperties: false,
} as const;
