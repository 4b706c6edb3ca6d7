export default {
  type: 'object',
  properties: {
    channel_folder_id: { type: 'integer' },
    name: { type: 'string' },
    description: { type: 'string' },
    is_archived: { type: 'boolean' },
  },
  required: ['channel_folder_id'],
  additionalProperties: false,
} as const;
