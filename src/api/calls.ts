// Video calls (spec endpoint 22) and the provider's OAuth flow.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import { joinPath, newMeetingId, signMeeting } from '../calls/bigBlueButton.js';
import { authorizationUrl, createMeeting, exchangeCode, jitsiRoomUrl } from '../calls/provider.js';
import { errors } from '../errors.js';
import type { PublicRequest, UserRequest } from '../http/route.js';
import { realmUrl } from '../organization/records.js';

/** The provider sends the user's browser back here with the code and our state. */
const redirectUri = (request: PublicRequest): string => `${realmUrl(request.realm.realm, request.config)}/api/v1/calls/provider/complete`;

function oauthProvider(request: PublicRequest) {
  const provider = request.config.videoProvider;
  if (!provider) throw errors.videoCallsNotConfigured();
  if (provider.kind !== 'oauth') throw errors.badRequest('This video call provider needs no authorization');
  return provider;
}

export async function createCall(request: UserRequest) {
  const provider = request.config.videoProvider;
  if (!provider) throw errors.videoCallsNotConfigured();
  if (provider.kind === 'jitsi') return { url: jitsiRoomUrl(provider.serverUrl) };
  const token = await request.realm.ask('calls.token', request.user.userId, {});
  if (token === null) throw errors.videoCallAuthorizationRequired();
  const url = await createMeeting(provider, token);
  if (url !== 'unauthorized') return { url };
  await request.realm.ask('calls.setToken', request.user.userId, { token: null });
  throw errors.videoCallAuthorizationRequired();
}

/** A BigBlueButton call (GET /calls/bigbluebutton/create): the signed join link of a new meeting
 * the caller moderates. */
export function createBigBlueButtonCall(request: UserRequest, params: Params<typeof schemas.createBigBlueButtonVideoCall>) {
  const server = request.config.bigBlueButton;
  if (!server) throw errors.bigBlueButtonNotConfigured();
  const meeting = { meeting_id: newMeetingId(), name: params.meeting_name, lock_settings_disable_cam: params.voice_only ?? false, moderator: request.user.userId };
  return { url: joinPath(signMeeting(server.secret, meeting)) };
}

/** Starts the OAuth flow: the URL to open in the user's browser. */
export function startCallAuthorization(request: UserRequest) {
  const provider = oauthProvider(request);
  const state = request.callAuthorizations.issue(request.realm.realm.id, request.user.userId);
  return { url: authorizationUrl(provider, redirectUri(request), state) };
}

/** Completes the OAuth flow: the state names the user, the code buys their token. */
export async function completeCallAuthorization(request: PublicRequest, params: Params<typeof schemas.completeVideoCallAuthorization>) {
  const provider = oauthProvider(request);
  const userId = request.callAuthorizations.redeem(params.state, request.realm.realm.id);
  if (userId === undefined) throw errors.badRequest('Invalid or expired authorization state');
  const token = await exchangeCode(provider, params.code, redirectUri(request));
  await request.realm.ask('calls.setToken', userId, { token });
  return {};
}
