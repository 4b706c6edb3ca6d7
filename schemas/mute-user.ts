export default {
  type: 'object',
  properties: { muted_user_id: { type: 'integer' } },
  required: ['muted_user_id'],
  additionalProperties: false,
} as const;
