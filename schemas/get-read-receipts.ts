export default {
  type: 'object',
  properties: { message_id: { type: 'integer' } },
  required: ['message_id'],
  additionalProperties: false,
} as const;
