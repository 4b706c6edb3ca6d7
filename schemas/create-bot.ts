export default {
  type: 'object',
  properties: {
    full_name: { type: 'string' },
    short_name: { type: 'string' },
    bot_type: { type: 'integer', default: 1 },
    payload_url: { type: ['string', 'null'] },
    service_name: { type: 'string' },
    interface_type: { type: 'integer' },
    config_data: { type: 'object' },
  },
  required: ['full_name', 'short_name'],
  additionalProperties: false,
} as const;
