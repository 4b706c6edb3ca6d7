// GET /api/v1/user_uploads/{realm_id_str}/{filename}: Zulip's filename is the rest of the path ID,
// whose three segments are taken apart here as GET /user_uploads/… takes them.
export default {
  type: 'object',
  properties: { realm_id_str: { type: 'integer' }, bucket: { type: 'string' }, random: { type: 'string' }, filename: { type: 'string' } },
  required: ['realm_id_str', 'bucket', 'random', 'filename'],
  additionalProperties: false,
} as const;
