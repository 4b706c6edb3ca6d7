import { subscriptionProperty } from './fragments.js';

export default {
  type: 'object',
  properties: {
    subscription_data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          stream_id: { type: 'integer' },
          property: subscriptionProperty,
          value: { type: ['boolean', 'string'] },
        },
        required: ['stream_id', 'property', 'value'],
        additionalProperties: false,
      },
    },
  },
  required: ['subscription_data'],
  additionalProperties: false,
} as const;
