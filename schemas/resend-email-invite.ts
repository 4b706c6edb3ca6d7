export default {
  type: 'object',
  properties: { invite_id: { type: 'integer' } },
  required: ['invite_id'],
  additionalProperties: false,
} as const;
