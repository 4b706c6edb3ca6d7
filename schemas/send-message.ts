export default {
  type: 'object',
  properties: {
    type: { enum: ['direct', 'private', 'channel', 'stream'] },
    to: {
      type: ['integer', 'string', 'array'],
      items: { type: ['integer', 'string'] },
    },
    topic: { type: 'string' },
    subject: { type: 'string' },
    content: { type: 'string' },
    read_by_sender: { type: 'boolean' },
    queue_id: { type: 'string' },
    local_id: { type: 'string' },
  },
  required: ['type', 'to', 'content'],
  additionalProperties: false,
} as const;
