export default {
  type: 'object',
  properties: {
    // 'private' is the pre-7.0 name of 'direct', which older clients still send.
    type: { enum: ['direct', 'private', 'stream', 'channel'], default: 'direct' },
    op: { enum: ['start', 'stop'] },
    to: { type: 'array', items: { type: 'integer' } },
    stream_id: { type: 'integer' },
    topic: { type: 'string' },
  },
  required: ['op'],
  additionalProperties: false,
} as const;
