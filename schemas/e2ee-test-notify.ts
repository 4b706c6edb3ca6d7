export default {
  type: 'object',
  properties: { device_id: { type: 'integer' }, push_account_id: { type: 'integer' } },
  additionalProperties: false,
} as const;
