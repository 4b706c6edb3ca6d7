export default {
  type: 'object',
  properties: { reminder_id: { type: 'integer' } },
  required: ['reminder_id'],
  additionalProperties: false,
} as const;
