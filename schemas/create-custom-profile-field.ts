import { profileFieldProperties } from './fragments.js';

export default {
  type: 'object',
  properties: {
    ...profileFieldProperties,
    field_type: { type: 'integer' },
  },
  required: ['field_type'],
  additionalProperties: false,
} as const;
