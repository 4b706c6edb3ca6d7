// GET /calls/bigbluebutton/join: the page a BigBlueButton call link opens (Zulip's join_bigbluebutton;
// a web page, not in Zulip's API reference).
export default {
  type: 'object',
  properties: { bigbluebutton: { type: 'string', maxLength: 4096 } },
  required: ['bigbluebutton'],
  additionalProperties: false,
} as const;
