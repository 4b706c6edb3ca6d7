export default {
  type: 'object',
  properties: {
    message_id: { type: 'integer' },
    report_type: { enum: ['spam', 'harassment', 'inappropriate', 'norms', 'other'] },
    description: { type: 'string' },
  },
  required: ['message_id', 'report_type'],
  additionalProperties: false,
} as const;
