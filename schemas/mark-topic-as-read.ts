export default {
  type: 'object',
  properties: { stream_id: { type: 'integer' }, topic_name: { type: 'string' } },
  required: ['stream_id', 'topic_name'],
  additionalProperties: false,
} as const;
