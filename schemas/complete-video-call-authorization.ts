export default {
  type: 'object',
  properties: { code: { type: 'string' }, state: { type: 'string' } },
  required: ['code', 'state'],
  additionalProperties: false,
} as const;
