// Invitations (Zulip's PreregistrationUser and MultiuseInvite): reusable links that let people
// create their own account in the organization, with a role, channels and groups chosen by whoever
// made the link. E-mail invitations need a mail transport the server does not have yet.
import { randomBytes } from 'node:crypto';
import type { Role } from './records.js';

export interface InviteRecord {
  id: number;
  realmId: number;
  /** The secret part of the link, /join/<key>/. */
  key: string;
  invitedBy: number;
  /** When it was made and when it expires (UNIX seconds; null: never). */
  invited: number;
  expires: number | null;
  invitedAs: Role;
  channelIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  revoked: boolean;
}

/** Zulip's INVITATION_LINK_VALIDITY_MINUTES default: 10 days. */
export const INVITATION_LINK_VALIDITY_MINUTES = 14_400;

export const newInviteKey = (): string => randomBytes(12).toString('hex');

export const joinPath = (key: string): string => `/join/${key}/`;

/** Whether the link still lets someone join at `now`. */
export const inviteUsable = (invite: InviteRecord, now: number): boolean => !invite.revoked && (invite.expires === null || invite.expires > now);

/** The Invite object of GET /invites. */
export const inviteView = (invite: InviteRecord, realmUrl: string) => ({
  id: invite.id,
  invited_by_user_id: invite.invitedBy,
  invited: invite.invited,
  expiry_date: invite.expires,
  invited_as: invite.invitedAs,
  notify_referrer_on_join: false,
  link_url: `${realmUrl}${joinPath(invite.key)}`,
  is_multiuse: true,
});
