export default {
  type: 'object',
  properties: { attachment_id: { type: 'integer' } },
  required: ['attachment_id'],
  additionalProperties: false,
} as const;
