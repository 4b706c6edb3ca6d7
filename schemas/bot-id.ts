// The bot an operation acts on: DELETE /bots/{bot_id}, POST /bots/{bot_id}/api_key/regenerate.
export default {
  type: 'object',
  properties: { bot_id: { type: 'integer' } },
  required: ['bot_id'],
  additionalProperties: false,
} as const;
