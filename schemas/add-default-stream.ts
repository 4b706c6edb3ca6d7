export default {
  type: 'object',
  properties: { stream_id: { type: 'integer' } },
  required: ['stream_id'],
  additionalProperties: false,
} as const;
