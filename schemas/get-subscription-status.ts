export default {
  type: 'object',
  properties: { user_id: { type: 'integer' }, stream_id: { type: 'integer' } },
  required: ['user_id', 'stream_id'],
  additionalProperties: false,
} as const;
