export default {
  type: 'object',
  properties: {
    include_public: { type: 'boolean', default: true },
    include_web_public: { type: 'boolean', default: false },
    include_subscribed: { type: 'boolean', default: true },
    exclude_archived: { type: 'boolean', default: true },
    include_all: { type: 'boolean', default: false },
    include_default: { type: 'boolean', default: false },
    include_owner_subscribed: { type: 'boolean', default: false },
    include_can_access_content: { type: 'boolean', default: false },
    include_all_active: { type: 'boolean', default: false },
  },
  additionalProperties: false,
} as const;
