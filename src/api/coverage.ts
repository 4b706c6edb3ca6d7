// What of Zulip's API reference (test/reference/zulip-openapi.json) Parley does not serve, and why.
// test/apiCoverage.test.ts fails when an operation of the reference has no route and is not here,
// or is here but has a route; docs' API table is generated from the same data.

/** `METHOD /path` as the reference writes it → why Parley has no route for it. */
export const unservedOperations: Readonly<Record<string, string>> = {
  'GET /reminders': 'not yet built (message reminders)',
  'POST /reminders': 'not yet built (message reminders)',
  'DELETE /reminders/{reminder_id}': 'not yet built (message reminders)',
  'POST /messages/{message_id}/report': 'not yet built (moderation requests)',
  'GET /user_uploads/{realm_id_str}/{filename}': 'not yet built (temporary file URLs)',
  'POST /mobile_push/test_notification': 'not yet built (the legacy test push; the E2EE one is served)',
  'POST /realm/test_welcome_bot_custom_message': 'not yet built',
  'GET /calls/bigbluebutton/create': 'not yet built (BigBlueButton calls)',
  'POST /real-time': "not an endpoint: the reference's page about the event system",
  'POST /rest-error-handling': "not an endpoint: the reference's page about errors",
  'POST /zulip-outgoing-webhook': 'not an endpoint Parley serves: the request Parley sends to outgoing-webhook bots (docs/integrations.md)',
};
