export default {
  type: 'object',
  properties: {
    token_kind: { enum: ['fcm', 'apns'] },
    push_account_id: { type: 'integer' },
    push_public_key: { type: 'string' },
    bouncer_public_key: { type: 'string' },
    encrypted_push_registration: { type: 'string' },
  },
  required: [
    'token_kind',
    'push_account_id',
    'push_public_key',
    'bouncer_public_key',
    'encrypted_push_registration',
  ],
  additionalProperties: false,
} as const;
