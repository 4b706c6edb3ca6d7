import { draft } from './fragments.js';

export default {
  type: 'object',
  properties: { drafts: { type: 'array', items: draft, default: [] } },
  additionalProperties: false,
} as const;
