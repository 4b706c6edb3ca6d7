// Zulip's path parameter is user_id_or_email; the router names this segment `email` for every
// /users/{…} route, and the command takes either form.
export default {
  type: 'object',
  properties: { email: { type: 'string' } },
  required: ['email'],
  additionalProperties: false,
} as const;
