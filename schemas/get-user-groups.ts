export default {
  type: 'object',
  properties: { include_deactivated_groups: { type: 'boolean', default: false } },
  additionalProperties: false,
} as const;
