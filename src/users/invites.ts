// Invitations (Zulip's PreregistrationUser and MultiuseInvite): reusable links that let people
// create their own account in the organization, with a role, channels and groups chosen by whoever
// made the link; e-mail invitations are the same link for one person, sent to their address.
import { randomBytes } from 'node:crypto';
import { escapeAttr, escapeText } from '../markdown/html.js';
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
  /** Revoked, or (an e-mail invitation) used. */
  revoked: boolean;
  /** An e-mail invitation: the address it was sent to, the only one that may join through it, once. */
  email?: string;
  /** Welcome Bot's text for who joins by it ('' for none); absent: the organization's. */
  welcomeText?: string;
}

/** Zulip's INVITATION_LINK_VALIDITY_MINUTES default: 10 days. */
export const INVITATION_LINK_VALIDITY_MINUTES = 14_400;

export const newInviteKey = (): string => randomBytes(12).toString('hex');

export const joinPath = (key: string): string => `/join/${key}/`;

/** Whether the link still lets someone join at `now`. */
export const inviteUsable = (invite: InviteRecord, now: number): boolean => !invite.revoked && (invite.expires === null || invite.expires > now);

/** The Invite object of GET /invites: a reusable link's URL, or an e-mail invitation's address. */
export const inviteView = (invite: InviteRecord, realmUrl: string) => ({
  id: invite.id,
  invited_by_user_id: invite.invitedBy,
  invited: invite.invited,
  expiry_date: invite.expires,
  invited_as: invite.invitedAs,
  notify_referrer_on_join: false,
  ...(invite.email === undefined ? { link_url: `${realmUrl}${joinPath(invite.key)}`, is_multiuse: true } : { email: invite.email, is_multiuse: false }),
});

/** The e-mail that carries an invitation. */
export function invitationMail(input: { to: string; inviterName: string; realmName: string; link: string }) {
  const text = `${input.inviterName} invited you to join ${input.realmName}.\n\nCreate your account: ${input.link}\n\nIf you did not expect this, ignore this e-mail.`;
  const html =
    `<!doctype html><html><body><p>${escapeText(input.inviterName)} invited you to join <b>${escapeText(input.realmName)}</b>.</p>` +
    `<p><a href="${escapeAttr(input.link)}">Create your account</a></p><p style="color:#666">If you did not expect this, ignore this e-mail.</p></body></html>`;
  return { to: input.to, subject: `${input.inviterName} invited you to ${input.realmName}`, text, html };
}
