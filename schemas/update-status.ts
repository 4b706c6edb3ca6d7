import { emojiProperties } from './fragments.js';

export default {
  type: 'object',
  properties: {
    status_text: { type: 'string' },
    away: { type: 'boolean' },
    ...emojiProperties,
  },
  additionalProperties: false,
} as const;
