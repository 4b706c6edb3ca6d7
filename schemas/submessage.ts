// POST /submessage (Zulip's process_submessage; the reference has no operation for it). `content`
// is JSON text, kept as sent: the widget's event, checked by the command.
export default {
  type: 'object',
  properties: { message_id: { type: 'integer' }, msg_type: { type: 'string' }, content: { type: 'string' } },
  required: ['message_id', 'msg_type', 'content'],
  additionalProperties: false,
} as const;
