// GET /static/{file_name}: a file of the web client's bundle, named by its content's hash.
export default {
  type: 'object',
  properties: { file_name: { type: 'string', pattern: '^[A-Za-z0-9_-]+\\.(js|css)(\\.map)?$' } },
  required: ['file_name'],
  additionalProperties: false,
} as const;
