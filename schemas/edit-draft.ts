import { draft } from './fragments.js';

export default {
  type: 'object',
  properties: { draft_id: { type: 'integer' }, draft },
  required: ['draft_id', 'draft'],
  additionalProperties: false,
} as const;
