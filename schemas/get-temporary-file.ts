// GET /user_uploads/temporary/{token}/{filename}: a temporary URL's file (the name is for the reader).
export default {
  type: 'object',
  properties: { token: { type: 'string' }, filename: { type: 'string' } },
  required: ['token', 'filename'],
  additionalProperties: false,
} as const;
