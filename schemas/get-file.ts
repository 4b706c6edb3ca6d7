// GET /user_uploads/{realm_id}/{bucket}/{random}/{filename}: the path ID's four segments.
export default {
  type: 'object',
  properties: { realm_id: { type: 'integer' }, bucket: { type: 'string' }, random: { type: 'string' }, filename: { type: 'string' } },
  required: ['realm_id', 'bucket', 'random', 'filename'],
  additionalProperties: false,
} as const;
