import { emojiProperties } from './fragments.js';

export default {
  type: 'object',
  properties: { user_id: { type: 'integer' }, status_text: { type: 'string' }, ...emojiProperties },
  required: ['user_id'],
  additionalProperties: false,
} as const;
