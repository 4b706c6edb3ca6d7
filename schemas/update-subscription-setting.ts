import { subscriptionProperty } from './fragments.js';

export default {
  type: 'object',
  properties: {
    stream_id: { type: 'integer' },
    property: subscriptionProperty,
    value: { type: ['boolean', 'string'] },
  },
  required: ['stream_id', 'property', 'value'],
  additionalProperties: false,
} as const;
