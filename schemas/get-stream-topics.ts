export default {
  type: 'object',
  properties: {
    stream_id: { type: 'integer' },
    allow_empty_topic_name: { type: 'boolean', default: false },
  },
  required: ['stream_id'],
  additionalProperties: false,
} as const;
