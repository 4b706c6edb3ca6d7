import { newChannelProperties } from './fragments.js';

export default {
  type: 'object',
  properties: {
    name: { type: 'string' },
    description: { type: 'string', default: '' },
    subscribers: { type: 'array', items: { type: 'integer' } },
    folder_id: { type: ['integer', 'null'] },
    ...newChannelProperties,
  },
  required: ['name', 'subscribers'],
  additionalProperties: false,
} as const;
