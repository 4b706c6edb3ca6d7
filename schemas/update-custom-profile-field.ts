import { profileFieldProperties } from './fragments.js';

export default {
  type: 'object',
  properties: {
    ...profileFieldProperties,
    field_id: { type: 'integer' },
  },
  required: ['field_id'],
  additionalProperties: false,
} as const;
