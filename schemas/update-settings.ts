import { defaultableSettings, personalOnlySettings } from './fragments.js';

export default {
  type: 'object',
  properties: { full_name: { type: 'string' }, ...defaultableSettings, ...personalOnlySettings },
  additionalProperties: false,
} as const;
