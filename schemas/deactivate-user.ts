export default {
  type: 'object',
  properties: {
    user_id: { type: 'integer' },
    actions: {
      type: 'object',
      default: {},
      properties: {
        delete_profile: { type: 'boolean' },
        delete_public_channel_messages: { type: 'boolean' },
        delete_private_channel_messages: { type: 'boolean' },
        delete_direct_messages: { type: 'boolean' },
      },
      additionalProperties: false,
    },
  },
  required: ['user_id'],
  additionalProperties: false,
} as const;
