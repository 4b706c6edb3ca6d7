export default {
  type: 'object',
  properties: { token: { type: 'string' }, appid: { type: 'string' } },
  required: ['token', 'appid'],
  additionalProperties: false,
} as const;
