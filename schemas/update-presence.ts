export default {
  type: 'object',
  properties: {
    status: { enum: ['active', 'idle'] },
    last_update_id: { type: 'integer' },
    history_limit_days: { type: 'integer' },
    new_user_input: { type: 'boolean', default: false },
    ping_only: { type: 'boolean', default: false },
    slim_presence: { type: 'boolean', default: false },
  },
  required: ['status'],
  additionalProperties: false,
} as const;
