// Zulip has no OpenAPI entry for bot storage (zerver/views/storage.py): the parameters as its view
// takes them. Without `keys`, every key of the bot's.
export default {
  type: 'object',
  properties: { keys: { type: 'array', items: { type: 'string' } } },
  additionalProperties: false,
} as const;
