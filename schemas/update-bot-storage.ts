// Zulip has no OpenAPI entry for bot storage (zerver/views/storage.py): `storage` is a JSON object of
// strings. Its values are checked by the command (botStorage.update), not here: ajv's coercion
// would store 5 as "5" where Zulip refuses it.
export default {
  type: 'object',
  properties: { storage: { type: 'object' } },
  required: ['storage'],
  additionalProperties: false,
} as const;
