export default {
  type: 'object',
  properties: {
    meeting_name: { type: 'string' },
    voice_only: { type: 'boolean' },
  },
  required: ['meeting_name'],
  additionalProperties: false,
} as const;
