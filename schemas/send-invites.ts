import { inviteProperties } from './fragments.js';

export default {
  type: 'object',
  properties: { invitee_emails: { type: 'string', maxLength: 100_000 }, notify_referrer_on_join: { type: 'boolean' }, ...inviteProperties },
  required: ['invitee_emails', 'stream_ids'],
  additionalProperties: false,
} as const;
