// BigBlueButton calls, as Zulip makes them: creating one only signs what the join step needs (a new
// meeting ID, its name, whether cameras are off, who moderates), so a user cannot edit the link to
// enter another meeting on the same server. The signature is keyed with the server's BigBlueButton
// secret, which never leaves the server. Joining creates the meeting on the BigBlueButton server
// (again, once an ended one is gone) and sends the person there, its creator as moderator.
import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto';

export interface BigBlueButtonMeeting {
  meeting_id: string;
  name: string;
  lock_settings_disable_cam: boolean;
  moderator: number;
}

const signature = (secret: string, payload: string): string => createHmac('sha256', `bigbluebutton:${secret}`).update(payload).digest('base64url');

/** A new meeting: Zulip's "zulip-" and twelve digits. */
export const newMeetingId = (): string => `zulip-${randomInt(100_000_000_000, 1_000_000_000_000)}`;

/** The meeting, signed: the value of the join link's `bigbluebutton` parameter. */
export function signMeeting(secret: string, meeting: BigBlueButtonMeeting): string {
  const payload = Buffer.from(JSON.stringify(meeting)).toString('base64url');
  return `${payload}:${signature(secret, payload)}`;
}

/** The meeting a signed value names, or undefined when it was not signed with this secret. */
export function readSignedMeeting(secret: string, signed: string): BigBlueButtonMeeting | undefined {
  const [payload, given, ...rest] = signed.split(':');
  if (payload === undefined || given === undefined || rest.length > 0) return undefined;
  const expected = Buffer.from(signature(secret, payload));
  const actual = Buffer.from(given);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return undefined;
  return JSON.parse(Buffer.from(payload, 'base64url').toString()) as BigBlueButtonMeeting;
}

/** Zulip's join link, relative to the organization's URL. */
export const joinPath = (signed: string): string => `/calls/bigbluebutton/join?bigbluebutton=${encodeURIComponent(signed)}`;

export interface BigBlueButtonServer {
  url: string;
  secret: string;
}

/** How long the BigBlueButton server has to answer a create. */
const CREATE_TIMEOUT_MS = 10_000;

/** A call of BigBlueButton's API: its query, checksummed with the shared secret (SHA-256 of the
 * call's name, the query and the secret). */
function apiUrl(server: BigBlueButtonServer, call: 'create' | 'join', params: Record<string, string>): string {
  const query = Object.entries(params)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  const checksum = createHash('sha256').update(call + query + server.secret).digest('hex');
  return `${server.url.replace(/\/?$/, '/')}api/${call}?${query}&checksum=${checksum}`;
}

/** A value of the create answer's XML (a flat document of a few known elements). */
const element = (xml: string, name: string): string | undefined => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

/** The BigBlueButton server's join URL for this person, or why there is none (Zulip's messages). */
export async function joinMeeting(server: BigBlueButtonServer, meeting: BigBlueButtonMeeting, person: { userId: number; fullName: string }): Promise<{ url: string } | { refused: string }> {
  let xml: string;
  try {
    const params = { meetingID: meeting.meeting_id, name: meeting.name, lockSettingsDisableCam: String(meeting.lock_settings_disable_cam) };
    const response = await fetch(apiUrl(server, 'create', params), { redirect: 'error', signal: AbortSignal.timeout(CREATE_TIMEOUT_MS) });
    if (!response.ok) return { refused: 'Error connecting to the BigBlueButton server.' };
    xml = await response.text();
  } catch {
    return { refused: 'Error connecting to the BigBlueButton server.' };
  }
  if (element(xml, 'messageKey') === 'checksumError') return { refused: 'Error authenticating to the BigBlueButton server.' };
  const createTime = element(xml, 'createTime');
  if (element(xml, 'returncode') !== 'SUCCESS' || createTime === undefined) return { refused: 'BigBlueButton server returned an unexpected error.' };
  // Only the meeting's creator moderates (and may turn a voice call into a video one); the create
  // time ties the link to this instance of the meeting.
  const role = meeting.moderator === person.userId ? 'MODERATOR' : 'VIEWER';
  return { url: apiUrl(server, 'join', { meetingID: meeting.meeting_id, role, fullName: person.fullName, createTime }) };
}
