export default {
  type: 'object',
  properties: { draft_id: { type: 'integer' } },
  required: ['draft_id'],
  additionalProperties: false,
} as const;
