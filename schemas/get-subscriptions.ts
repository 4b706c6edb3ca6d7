export default {
  type: 'object',
  properties: { include_subscribers: { type: 'boolean', default: false } },
  additionalProperties: false,
} as const;
