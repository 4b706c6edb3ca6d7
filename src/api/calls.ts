// Video calls (spec endpoint 22), the provider's OAuth flow, and BigBlueButton's join page.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import { joinMeeting, joinPath, newMeetingId, readSignedMeeting, signMeeting, type BigBlueButtonMeeting, type BigBlueButtonServer } from '../calls/bigBlueButton.js';
import { authorizationUrl, createMeeting, exchangeCode, jitsiRoomUrl } from '../calls/provider.js';
import { ApiError, errors } from '../errors.js';
import { Redirect, type PublicRequest, type UserRequest } from '../http/route.js';
import { escapeAttr, escapeText } from '../markdown/html.js';
import { checkPassword } from './auth.js';
import { page } from './invites.js';
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

/** The page a BigBlueButton link opens: as Zulip's needs a login (for the name the meeting shows),
 * a person signs in here — Parley keeps no browser sessions — and is sent to the meeting. */
export function bigBlueButtonJoinPage(request: PublicRequest, params: Params<typeof schemas.getBigBlueButtonJoin>) {
  const call = signedMeeting(request, params.bigbluebutton);
  return 'refused' in call ? pageRefusal(call.refused) : joinForm(call.meeting.name, params.bigbluebutton);
}

export async function joinBigBlueButton(request: PublicRequest, params: Params<typeof schemas.joinBigBlueButton>) {
  const call = signedMeeting(request, params.bigbluebutton);
  if ('refused' in call) return pageRefusal(call.refused);
  let person: { userId: number; fullName: string };
  try {
    person = await checkPassword(request, params.username, params.password);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return joinForm(call.meeting.name, params.bigbluebutton, error.message, params.username);
  }
  const joined = await joinMeeting(call.server, call.meeting, person);
  return 'refused' in joined ? pageRefusal(joined.refused) : new Redirect(joined.url);
}

/** The meeting a join link names, if BigBlueButton is set up and the link is the server's. */
function signedMeeting(request: PublicRequest, signed: string): { server: BigBlueButtonServer; meeting: BigBlueButtonMeeting } | { refused: string } {
  const server = request.config.bigBlueButton;
  if (!server) return { refused: 'BigBlueButton is not configured.' };
  const meeting = readSignedMeeting(server.secret, signed);
  return meeting ? { server, meeting } : { refused: 'Invalid signature.' };
}

const pageRefusal = (message: string) => page('Video call', `<p class="error" role="alert">${escapeText(message)}</p>`, 400);

function joinForm(meetingName: string, signed: string, error?: string, username = '') {
  return page(
    `Join “${meetingName}”`,
    (error === undefined ? '' : `<p class="error" role="alert">${escapeText(error)}</p>`) +
      `<form method="post"><input type="hidden" name="bigbluebutton" value="${escapeAttr(signed)}">` +
      `<label for="username">E-mail address</label><input id="username" name="username" type="email" autocomplete="email" value="${escapeAttr(username)}" required>` +
      `<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>` +
      `<button type="submit">Join the call</button></form>`,
    error === undefined ? 200 : 400,
  );
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
