export default {
  type: 'object',
  properties: { include_archived: { type: 'boolean', default: false } },
  additionalProperties: false,
} as const;
