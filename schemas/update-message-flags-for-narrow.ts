import { narrow } from './fragments.js';

export default {
  type: 'object',
  properties: {
    anchor: { type: 'string', pattern: '^(newest|oldest|first_unread|\\d+)$' },
    include_anchor: { type: 'boolean', default: true },
    num_before: { type: 'integer', minimum: 0 },
    num_after: { type: 'integer', minimum: 0 },
    narrow,
    op: { enum: ['add', 'remove'] },
    flag: { type: 'string' },
  },
  required: ['anchor', 'num_before', 'num_after', 'narrow', 'op', 'flag'],
  additionalProperties: false,
} as const;
