// PATCH /bots/{bot_id} (Zulip's patch_bot_backend; not in the API reference). Zulip's web app sends
// the service's URL JSON-encoded; a plain URL is taken as it is.
export default {
  type: 'object',
  properties: {
    bot_id: { type: 'integer' },
    full_name: { type: 'string' },
    bot_owner_id: { type: 'integer' },
    config_data: { type: 'object' },
    service_payload_url: { type: ['string', 'null'] },
    service_interface: { type: 'integer' },
    default_sending_stream: { type: ['string', 'null'] },
    default_events_register_stream: { type: ['string', 'null'] },
    default_all_public_streams: { type: 'boolean' },
  },
  required: ['bot_id'],
  additionalProperties: false,
} as const;
