import { narrow } from './fragments.js';

export default {
  type: 'object',
  properties: { msg_ids: { type: 'array', items: { type: 'integer' } }, narrow },
  required: ['msg_ids', 'narrow'],
  additionalProperties: false,
} as const;
