export default {
  type: 'object',
  properties: {
    stream_id: { type: 'integer' },
    topic: { type: 'string' },
    visibility_policy: { type: 'integer', enum: [0, 1, 2, 3] },
  },
  required: ['stream_id', 'topic', 'visibility_policy'],
  additionalProperties: false,
} as const;
