// GET /join/{key}/: the page of a reusable invitation link (Parley's own; Zulip's is a web page).
export default {
  type: 'object',
  properties: { key: { type: 'string', maxLength: 64 } },
  required: ['key'],
  additionalProperties: false,
} as const;
