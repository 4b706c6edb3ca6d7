export default {
  type: 'object',
  properties: {
    message_id: { type: 'integer' },
    content: { type: 'string' },
    topic: { type: 'string' },
    stream_id: { type: 'integer' },
    propagate_mode: { enum: ['change_one', 'change_later', 'change_all'], default: 'change_one' },
    send_notification_to_old_thread: { type: 'boolean', default: false },
    send_notification_to_new_thread: { type: 'boolean', default: true },
  },
  required: ['message_id'],
  additionalProperties: false,
} as const;
