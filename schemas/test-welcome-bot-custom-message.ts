export default {
  type: 'object',
  properties: {
    welcome_message_custom_text: { type: 'string', maxLength: 8000 },
  },
  required: ['welcome_message_custom_text'],
  additionalProperties: false,
} as const;
