// POST /calls/bigbluebutton/join: the join page's sign-in form, which sends the person to the meeting.
export default {
  type: 'object',
  properties: {
    bigbluebutton: { type: 'string', maxLength: 4096 },
    username: { type: 'string', maxLength: 254 },
    password: { type: 'string', maxLength: 1024 },
  },
  required: ['bigbluebutton', 'username', 'password'],
  additionalProperties: false,
} as const;
