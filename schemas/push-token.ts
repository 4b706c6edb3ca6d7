// The token of a phone registered for push (add-fcm-token, remove-fcm-token, remove-apns-token).
export default {
  type: 'object',
  properties: { token: { type: 'string' } },
  required: ['token'],
  additionalProperties: false,
} as const;
