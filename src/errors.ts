// The error catalogue: every error the API returns, once, with its Zulip code and HTTP status.
// Handlers throw `ApiError`s made here; nothing else builds error bodies.

export type ErrorCode =
  | 'BAD_REQUEST'
  | 'REQUEST_VARIABLE_MISSING'
  | 'UNAUTHORIZED'
  | 'UNAUTHORIZED_PRINCIPAL'
  | 'USER_DEACTIVATED'
  | 'REALM_DEACTIVATED'
  | 'INVALID_API_KEY'
  | 'AUTHENTICATION_FAILED'
  | 'STREAM_DOES_NOT_EXIST'
  | 'REACTION_ALREADY_EXISTS'
  | 'REACTION_DOES_NOT_EXIST'
  | 'BAD_EVENT_QUEUE_ID'
  | 'RATE_LIMIT_HIT'
  | 'REQUEST_ENTITY_TOO_LARGE'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'INTERNAL_SERVER_ERROR'
  | 'PUSH_SERVICE_NOT_CONFIGURED'
  | 'NO_ACTIVE_PUSH_DEVICE'
  | 'INVALID_PUSH_DEVICE_TOKEN'
  | 'ADMIN_ACTION_REQUIRED'
  | 'FAILED_TO_CONNECT_BOUNCER'
  | 'EMAIL_NOT_SENT'
  | 'INTERNAL_SERVER_ERROR_ON_BOUNCER'
  | 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED'
  | 'STORAGE_UNAVAILABLE'
  | 'ROLLED_BACK'
  | 'SERVER_SHUTTING_DOWN'
  | 'REALM_UNAVAILABLE'
  | 'SERVER_BUSY'
  | 'CANNOT_DEACTIVATE_LAST_USER'
  | 'CHANNEL_ALREADY_EXISTS'
  | 'UNSUPPORTED_WEBHOOK_EVENT_TYPE'
  | 'MISSING_HTTP_EVENT_HEADER';

export type ErrorExtra = Record<string, string | number | boolean | null>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: ErrorExtra = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return { result: 'error', msg: this.message, code: this.code, ...this.extra };
  }
}

const basicChallenge = { 'WWW-Authenticate': 'Basic realm="zulip"' };

export const errors = {
  badRequest: (msg: string) => new ApiError(400, 'BAD_REQUEST', msg),
  /** A query for more than the user may see (every active channel, every public channel's events). */
  queryNotAuthorized: () => new ApiError(400, 'BAD_REQUEST', 'User not authorized for this query'),
  missingArgument: (name: string) => new ApiError(400, 'REQUEST_VARIABLE_MISSING', `Missing '${name}' argument`, { var_name: name }),
  invalidArgument: (name: string) => new ApiError(400, 'BAD_REQUEST', `Invalid ${name}`),
  malformedJson: (name: string) => new ApiError(400, 'BAD_REQUEST', `Argument "${name}" is not valid JSON.`),
  incompatibleParameters: (names: readonly string[]) => new ApiError(400, 'BAD_REQUEST', `Unsupported parameter combination: ${names.join(', ')}`, { parameters: names.join(', ') }),
  unauthorized: (msg = 'Not logged in: API authentication or user session required') =>
    new ApiError(401, 'UNAUTHORIZED', msg, {}, basicChallenge),
  invalidApiKey: () => new ApiError(401, 'INVALID_API_KEY', 'Invalid API key', {}, basicChallenge),
  userDeactivated: () => new ApiError(401, 'USER_DEACTIVATED', 'Account is deactivated', {}, basicChallenge),
  realmDeactivated: () => new ApiError(401, 'REALM_DEACTIVATED', 'This organization is deactivated'),
  /** Zulip answers an event it does not describe with 200, so the service does not retry it. */
  unsupportedWebhookEvent: (webhookName: string, eventType: string) =>
    new ApiError(200, 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', `The '${eventType}' event isn't currently supported by the ${webhookName} webhook; ignoring`, { webhook_name: webhookName, event_type: eventType }),
  missingEventHeader: (header: string) => new ApiError(400, 'MISSING_HTTP_EVENT_HEADER', `Missing the HTTP event header '${header}'`, { header }),
  malformedJsonBody: () => new ApiError(400, 'BAD_REQUEST', 'Malformed JSON'),
  malformedWebhookPayload: (webhookName: string, detail: string) => new ApiError(400, 'BAD_REQUEST', `Malformed ${webhookName} payload: ${detail}`),
  unknownIntegration: (name: string) => new ApiError(404, 'NOT_FOUND', `No such integration: ${name}`),
  incomingWebhookBot: () => new ApiError(400, 'BAD_REQUEST', 'This API is not available to incoming webhook bots.'),
  humanOnly: () => new ApiError(400, 'BAD_REQUEST', 'This endpoint does not accept bot requests.'),
  adminRequired: () => new ApiError(400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator'),
  ownerRequired: () => new ApiError(400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner'),
  notReady: (reason: string) => new ApiError(503, 'STORAGE_UNAVAILABLE', `Not ready: the last write could not be saved (${reason})`),
  channelAlreadyExists: (name: string) => new ApiError(409, 'CHANNEL_ALREADY_EXISTS', `Channel '${name}' already exists`),
  /** A user deactivating themself when they are the organization's only owner, or only user. */
  cannotDeactivateLastUser: (isLastOwner: boolean) => {
    const entity = isLastOwner ? 'organization owner' : 'user';
    return new ApiError(400, 'CANNOT_DEACTIVATE_LAST_USER', `Cannot deactivate the only ${entity}`, { is_last_owner: isLastOwner, entity });
  },
  insufficientRights: () => new ApiError(400, 'BAD_REQUEST', 'Insufficient permission'),
  noSuchUser: () => new ApiError(400, 'BAD_REQUEST', 'No such user'),
  streamDoesNotExist: (streamId: number) =>
    new ApiError(400, 'STREAM_DOES_NOT_EXIST', `Channel with ID '${streamId}' does not exist`, { stream_id: streamId }),
  reactionExists: () => new ApiError(400, 'REACTION_ALREADY_EXISTS', 'Reaction already exists.'),
  reactionDoesNotExist: () => new ApiError(400, 'REACTION_DOES_NOT_EXIST', "Reaction doesn't exist."),
  tooManyQueues: (limit: number) => new ApiError(400, 'BAD_REQUEST', `Too many event queues (limit: ${limit}); delete unused ones with DELETE /events`),
  badEventQueueId: (queueId: string) =>
    new ApiError(400, 'BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queueId}`, { queue_id: queueId }),
  /** Whole seconds, as the reference's RateLimitedError has them. */
  rateLimited: (retryAfterSeconds: number) =>
    new ApiError(429, 'RATE_LIMIT_HIT', 'API usage exceeded rate limit', { 'retry-after': Math.max(1, Math.ceil(retryAfterSeconds)) }, {
      'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    }),
  bodyTooLarge: (limit: number) =>
    new ApiError(413, 'REQUEST_ENTITY_TOO_LARGE', `Request body is larger than the limit of ${limit} bytes`),
  notFound: () => new ApiError(404, 'NOT_FOUND', 'Endpoint not found'),
  methodNotAllowed: (allowed: readonly string[]) =>
    new ApiError(405, 'METHOD_NOT_ALLOWED', 'Method Not Allowed', {}, { Allow: allowed.join(', ') }),
  authenticationFailed: () =>
    new ApiError(401, 'AUTHENTICATION_FAILED', 'Your username or password is incorrect', {}, basicChallenge),
  draftNotFound: () => new ApiError(404, 'BAD_REQUEST', 'Draft does not exist'),
  savedSnippetNotFound: () => new ApiError(404, 'BAD_REQUEST', 'Saved snippet does not exist.'),
  botRequired: () => new ApiError(400, 'BAD_REQUEST', 'Must be a bot user'),
  botStorageKeyMissing: () => new ApiError(400, 'BAD_REQUEST', 'Key does not exist.'),
  botStorageFull: (over: number, limit: number) => new ApiError(400, 'BAD_REQUEST', `Request exceeds storage limit by ${over} characters. The limit is ${limit} characters.`),
  /** A parameter's part of the wrong type, named as the validator names it (`storage["key"]`). */
  notAString: (name: string) => new ApiError(400, 'BAD_REQUEST', `${name} is not a string`),
  navigationViewNotFound: () => new ApiError(404, 'BAD_REQUEST', 'Navigation view does not exist.'),
  reminderNotFound: () => new ApiError(404, 'BAD_REQUEST', 'Reminder does not exist'),
  devOnly: () => new ApiError(400, 'BAD_REQUEST', 'DevAuthBackend not enabled.'),
  pushNotConfigured: () => new ApiError(400, 'PUSH_SERVICE_NOT_CONFIGURED', 'Server is not configured to use push notification service.'),
  noActivePushDevice: () => new ApiError(400, 'NO_ACTIVE_PUSH_DEVICE', 'No active registered push device'),
  invalidPushDeviceToken: () => new ApiError(400, 'INVALID_PUSH_DEVICE_TOKEN', 'Device not recognized'),
  pushAdminActionRequired: () =>
    new ApiError(403, 'ADMIN_ACTION_REQUIRED', 'Push notification configuration issue on server, contact the server administrator or retry later.'),
  failedToConnectBouncer: () => new ApiError(502, 'FAILED_TO_CONNECT_BOUNCER', 'Network error while connecting to Zulip push notification service.'),
  bouncerServerError: () => new ApiError(502, 'INTERNAL_SERVER_ERROR_ON_BOUNCER', 'Internal server error on Zulip push notification service, retry later.'),
  videoCallsNotConfigured: () => new ApiError(400, 'BAD_REQUEST', 'Video calls are not configured on this server'),
  bigBlueButtonNotConfigured: () => new ApiError(400, 'BAD_REQUEST', 'BigBlueButton is not configured.'),
  videoCallAuthorizationRequired: () => new ApiError(400, 'BAD_REQUEST', "Authorize the video call provider first (has_provider_token is false)"),
  videoCallFailed: () => new ApiError(400, 'BAD_REQUEST', 'Failed to create video call'),
  noFileGiven: () => new ApiError(400, 'BAD_REQUEST', 'You must specify a file to upload'),
  oneFileOnly: () => new ApiError(400, 'BAD_REQUEST', 'You may only upload one file at a time'),
  noSuchInvitation: () => new ApiError(400, 'BAD_REQUEST', 'No such invitation'),
  invitationRevoked: () => new ApiError(400, 'BAD_REQUEST', 'Invitation has already been revoked'),
  invitationNotUsable: () => new ApiError(400, 'BAD_REQUEST', 'The registration link has expired or is not valid.'),
  noEmailAddresses: () => new ApiError(400, 'BAD_REQUEST', 'You must specify at least one email address.'),
  emailInvitesUnavailable: () =>
    new ApiError(400, 'BAD_REQUEST', 'This server cannot send e-mail: no mail transport is configured. Create a reusable invitation link instead (POST /invites/multiuse).'),
  emailNotSent: (addresses: readonly string[]) => new ApiError(502, 'EMAIL_NOT_SENT', `The mail server did not take the invitation to ${addresses.join(', ')}; it was not kept. Try again later.`),
  cannotSubscribeOthers: () => new ApiError(400, 'BAD_REQUEST', 'You do not have permission to subscribe other users to channels.'),
  avatarChangesDisabled: () => new ApiError(400, 'BAD_REQUEST', 'Avatar changes are disabled in this organization.'),
  fileTooLarge: (maxMib: number) => new ApiError(400, 'BAD_REQUEST', `File is larger than this server's configured maximum upload size (${maxMib} MiB).`),
  uploadQuotaExceeded: () => new ApiError(400, 'BAD_REQUEST', "Upload would exceed your organization's upload quota."),
  invalidAttachment: () => new ApiError(400, 'BAD_REQUEST', 'Invalid attachment'),
  fileNotFound: () => new ApiError(404, 'NOT_FOUND', 'File not found.'),
  fileForbidden: () => new ApiError(403, 'BAD_REQUEST', 'You are not authorized to view this file.'),
  internal: () => new ApiError(500, 'INTERNAL_SERVER_ERROR', 'Internal server error'),
  serverBusy: () => new ApiError(503, 'SERVER_BUSY', 'The server is handling too many large requests; try again in a moment.', {}, { 'Retry-After': '1' }),
  realmMoved: () => new ApiError(503, 'REALM_UNAVAILABLE', 'This organization is moving to another server; try again in a moment.', {}, { 'Retry-After': '1' }),
  shuttingDown: () => new ApiError(503, 'SERVER_SHUTTING_DOWN', 'The server is restarting; try again in a moment.', {}, { 'Retry-After': '1' }),
  /** Asked or saved together with a change that was rolled back after it had begun: nothing was
   * saved, and trying again will do. */
  rolledBack: () => new ApiError(503, 'ROLLED_BACK', 'The change was not made: another change made alongside it was rolled back. Nothing was changed; try again.', {}, { 'Retry-After': '0' }),
  /** The change could not be made durable (disk full, I/O error): nothing was saved; retry later. */
  storageUnavailable: (cause: string) =>
    new ApiError(507, 'STORAGE_UNAVAILABLE', `The server could not save the change (${cause}); nothing was changed. Try again later.`, {}, { 'Retry-After': '30' }),
} as const;
