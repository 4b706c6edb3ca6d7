import { emojiProperties } from './fragments.js';

export default {
  type: 'object',
  properties: { message_id: { type: 'integer' }, ...emojiProperties },
  required: ['message_id'],
  additionalProperties: false,
} as const;
