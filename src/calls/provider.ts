// The video call provider: a Jitsi-style server needs nothing but a fresh room name; an OAuth 2
// provider (Zoom-style) is authorized once per user and then creates meetings with their token.
import { randomBytes } from 'node:crypto';
import type { VideoProvider } from '../config.js';
import { errors } from '../errors.js';

type OAuthProvider = Extract<VideoProvider, { kind: 'oauth' }>;

const PROVIDER_TIMEOUT_MS = 10_000;

/** A new room on a Jitsi-style server: unguessable, so only those given the link join. */
export const jitsiRoomUrl = (serverUrl: string): string => `${serverUrl}/${randomBytes(12).toString('hex')}`;

/** Where the user's browser goes to authorize the provider; it comes back to `redirectUri`. */
export function authorizationUrl(provider: OAuthProvider, redirectUri: string, state: string): string {
  const url = new URL(provider.authorizeUrl);
  url.search = new URLSearchParams({ response_type: 'code', client_id: provider.clientId, redirect_uri: redirectUri, state }).toString();
  return url.toString();
}

async function post(url: string, init: RequestInit): Promise<Response | undefined> {
  try {
    return await fetch(url, { ...init, method: 'POST', signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch {
    return undefined;
  }
}

/** Trades the authorization code for the user's access token. */
export async function exchangeCode(provider: OAuthProvider, code: string, redirectUri: string): Promise<string> {
  const response = await post(provider.tokenUrl, {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: provider.clientId, client_secret: provider.clientSecret }).toString(),
  });
  const body = response?.ok ? ((await response.json().catch(() => undefined)) as { access_token?: unknown } | undefined) : undefined;
  if (typeof body?.access_token !== 'string') throw errors.badRequest('The video call provider refused the authorization');
  return body.access_token;
}

/** A meeting's join URL, or 'unauthorized' when the provider no longer accepts the token. */
export async function createMeeting(provider: OAuthProvider, token: string): Promise<string | 'unauthorized'> {
  const response = await post(provider.createMeetingUrl, {
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ type: 1, settings: { join_before_host: true } }),
  });
  if (response?.status === 401) return 'unauthorized';
  const body = response?.ok ? ((await response.json().catch(() => undefined)) as { join_url?: unknown } | undefined) : undefined;
  if (typeof body?.join_url !== 'string') throw errors.videoCallFailed();
  return body.join_url;
}
