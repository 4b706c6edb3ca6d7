export default {
  type: 'object',
  properties: {
    stream_id: { type: 'integer' },
    stream: { type: 'string' },
    topic: { type: 'string' },
    op: { enum: ['add', 'remove'] },
  },
  required: ['topic', 'op'],
  additionalProperties: false,
} as const;
