// Invitations (GET/POST /invites, POST /invites/multiuse, revoking and resending) and the page a
// reusable link opens (/join/<key>/), where a person creates their account.
import type * as schemas from '../../schemas/index.js';
import { ApiError, errors } from '../errors.js';
import { Page, type PublicRequest, type UserRequest } from '../http/route.js';
import type { Params } from '../http/validation.js';
import { escapeAttr, escapeText } from '../markdown/html.js';
import { hashNewPassword } from '../users/password.js';
import type { Role } from '../users/records.js';
import { invitationMail } from '../users/invites.js';
import { sendMail } from '../mail/transport.js';
import type { SentInvite } from '../realm/commands/invites.js';

type InviteParams = Params<typeof schemas.createInviteLink>;

const inviteOptions = (params: InviteParams) => ({
  expiresInMinutes: params.invite_expires_in_minutes,
  invitedAs: params.invite_as as Role,
  channelIds: params.stream_ids,
  groupIds: params.group_ids,
  includeRealmDefaultSubscriptions: params.include_realm_default_subscriptions,
  welcomeText: params.welcome_message_custom_text ?? null,
});

export const createInviteLink = (request: UserRequest, params: InviteParams) => request.realm.ask('invites.createLink', request.user.userId, inviteOptions(params));

export async function getInvites(request: UserRequest) {
  return { invites: await request.realm.ask('invites.list', request.user.userId, {}) };
}

export const revokeInviteLink = (request: UserRequest, params: Params<typeof schemas.revokeInviteLink>) =>
  request.realm.ask('invites.revoke', request.user.userId, { id: params.invite_id, email: false });

export const revokeEmailInvite = (request: UserRequest, params: Params<typeof schemas.revokeEmailInvite>) =>
  request.realm.ask('invites.revoke', request.user.userId, { id: params.invite_id, email: true });

/** Sends stored e-mail invitations; one the mail server would not take is revoked, and the answer
 * names it (the others went out). */
async function mailInvites(request: UserRequest, invites: readonly SentInvite[]): Promise<Record<string, never>> {
  const failed: string[] = [];
  await Promise.all(
    invites.map(async (invite) => {
      try {
        await sendMail(request.config.mail!, invitationMail({ to: invite.email, inviterName: invite.inviterName, realmName: invite.realmName, link: invite.link }));
      } catch (error) {
        request.config.log.warn({ err: error, invite: invite.id }, 'invitation e-mail not sent');
        failed.push(invite.email);
        await request.realm.ask('invites.revoke', request.user.userId, { id: invite.id, email: true }).catch(() => undefined);
      }
    }),
  );
  if (failed.length > 0) throw errors.emailNotSent(failed);
  return {};
}

export async function sendInvites(request: UserRequest, params: Params<typeof schemas.sendInvites>) {
  const emails = params.invitee_emails.split(/[,\n]/).map((email) => email.trim()).filter((email) => email !== '');
  return mailInvites(request, await request.realm.ask('invites.send', request.user.userId, { ...inviteOptions(params), emails }));
}

export async function resendEmailInvite(request: UserRequest, params: Params<typeof schemas.resendEmailInvite>) {
  return mailInvites(request, [await request.realm.ask('invites.resend', request.user.userId, { id: params.invite_id })]);
}

/** A small HTML page for a person following a link (invitations, unsubscribing). */
export const page = (title: string, body: string, status: 200 | 400 = 200) =>
  new Page(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeText(title)}</title>` +
      `<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.4rem;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1rem}.error{color:#b00020}</style>` +
      `</head><body><main><h1>${escapeText(title)}</h1>${body}</main></body></html>`,
    status,
  );

function joinForm(realmName: string, error?: string, values: { email?: string; full_name?: string } = {}) {
  const field = (name: string, label: string, type: string, autocomplete: string, value = '') =>
    `<label for="${name}">${label}</label><input id="${name}" name="${name}" type="${type}" autocomplete="${autocomplete}" value="${escapeAttr(value)}" required>`;
  return page(
    `Join ${realmName}`,
    (error === undefined ? '' : `<p class="error" role="alert">${escapeText(error)}</p>`) +
      `<form method="post">${field('email', 'E-mail address', 'email', 'email', values.email)}${field('full_name', 'Full name', 'text', 'name', values.full_name)}` +
      `${field('password', 'Password', 'password', 'new-password')}<button type="submit">Create account</button></form>`,
    error === undefined ? 200 : 400,
  );
}

/** A link that cannot be used, or any other refusal, as a page rather than JSON. */
const refusal = (error: unknown) => {
  if (error instanceof ApiError) return page('Invitation', `<p class="error" role="alert">${escapeText(error.message)}</p>`, 400);
  throw error;
};

export async function joinPage(request: PublicRequest, params: Params<typeof schemas.getJoinPage>) {
  try {
    const { realmName } = await request.realm.ask('invites.describe', null, { key: params.key });
    return joinForm(realmName);
  } catch (error) {
    return refusal(error);
  }
}

export async function join(request: PublicRequest, params: Params<typeof schemas.joinOrganization>) {
  let realmName: string;
  try {
    ({ realmName } = await request.realm.ask('invites.describe', null, { key: params.key }));
  } catch (error) {
    return refusal(error);
  }
  try {
    const passwordHash = await hashNewPassword(params.password, request.config);
    const { email } = await request.realm.ask('invites.join', null, { key: params.key, user: { email: params.email.trim(), fullName: params.full_name, passwordHash } });
    return page(`Welcome to ${realmName}`, `<p>Your account <strong>${escapeText(email)}</strong> is ready. Sign in with this e-mail address and your password in any Zulip app, at this server's address.</p>`);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return joinForm(realmName, error.message, params);
  }
}
