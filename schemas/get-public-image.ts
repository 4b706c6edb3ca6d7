// GET /user_avatars/{realm_id}/emoji/images/{file_name} and /user_avatars/{realm_id}/avatars/{file_name}:
// a custom emoji's image or an uploaded avatar.
export default {
  type: 'object',
  properties: { realm_id: { type: 'integer' }, file_name: { type: 'string', pattern: '^[0-9a-f-]+\\.[a-z]+$' } },
  required: ['realm_id', 'file_name'],
  additionalProperties: false,
} as const;
