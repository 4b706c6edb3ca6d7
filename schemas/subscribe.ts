import { newChannelProperties } from './fragments.js';

export default {
  type: 'object',
  properties: {
    subscriptions: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, description: { type: 'string' } },
        required: ['name'],
      },
    },
    principals: { type: 'array', items: { type: ['integer', 'string'] } },
    authorization_errors_fatal: { type: 'boolean', default: true },
    ...newChannelProperties,
  },
  required: ['subscriptions'],
  additionalProperties: false,
} as const;
