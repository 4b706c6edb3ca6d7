// BigBlueButton calls, as Zulip makes them: creating one only signs what the join step needs (a new
// meeting ID, its name, whether cameras are off, who moderates), so a user cannot edit the link to
// enter another meeting on the same server. The signature is keyed with the server's BigBlueButton
// secret, which never leaves the server.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

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
