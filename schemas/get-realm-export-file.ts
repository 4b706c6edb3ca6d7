// GET /user_avatars/exports/{realm_id}/{random}/{file_name}: a data export's tarball, where Zulip's
// local file storage serves it (export_url).
export default {
  type: 'object',
  properties: { realm_id: { type: 'integer' }, random: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' }, file_name: { type: 'string', pattern: '^zulip-export-[0-9a-f]+\\.tar\\.gz$' } },
  required: ['realm_id', 'random', 'file_name'],
  additionalProperties: false,
} as const;
