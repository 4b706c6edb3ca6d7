// GET and POST /accounts/unsubscribe/missed_messages/{user_id}/{token}: the one-click unsubscribe
// link of missed-message e-mails (Parley's own; Zulip's is a web page).
export default {
  type: 'object',
  properties: { user_id: { type: 'integer' }, token: { type: 'string', maxLength: 64 } },
  required: ['user_id', 'token'],
  additionalProperties: false,
} as const;
