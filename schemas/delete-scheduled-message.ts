export default {
  type: 'object',
  properties: { scheduled_message_id: { type: 'integer' } },
  required: ['scheduled_message_id'],
  additionalProperties: false,
} as const;
