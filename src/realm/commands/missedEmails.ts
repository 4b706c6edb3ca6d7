// Missed-message e-mails: each user's batch (queued with the messages, notifications.ts) is turned
// into one e-mail when it falls due, leaving out what was read or deleted meanwhile; the notifier
// sends it and records the outcome here.
import { missedMessageMail, type MissedConversation } from '../../mail/missedMessages.js';
import type { Mail } from '../../mail/transport.js';
import type { EmailBatchRecord } from '../../messages/notifications.js';
import { topicFragment } from '../../messages/links.js';
import { Flag, type MessageRecord } from '../../messages/records.js';
import { realmUrl } from '../../organization/records.js';
import { realmProperty } from '../../organization/settings.js';
import { plainText } from '../../push/payloads.js';
import { userSetting } from '../../users/settings.js';
import { unsubscribePath } from '../../users/unsubscribe.js';
import type { UserRecord } from '../../users/records.js';
import type { CommandContext, ReadContext } from '../context.js';
import { INACCESSIBLE_USER_NAME } from '../../users/view.js';
import { accessibleUsers, sees } from './userAccess.js';
import { backoff } from '../../clock.js';

/** Retries of an e-mail the SMTP server did not take wait 1, 2, 4, … minutes, at most 30. */
const RETRY_FIRST_SECONDS = 60;
const RETRY_MAX_SECONDS = 30 * 60;
/** An e-mail refused this many times is dropped. */
const MAX_ATTEMPTS = 20;

export interface DueEmail {
  userId: number;
  /** The messages of the batch it deals with: the batch keeps any that arrived since. */
  messageIds: number[];
  mail: Mail;
}

function conversationOf(ctx: ReadContext, user: UserRecord, message: MessageRecord, base: string, nameOf: (userId: number) => string): Omit<MissedConversation, 'messages'> & { key: string } {
  if (message.channelId !== null) {
    const name = ctx.state.channels.get(message.channelId)?.name ?? '';
    return {
      key: `channel:${message.channelId}:${message.topic.toLowerCase()}`,
      title: `#${name} > ${message.topic}`,
      url: `${base}/#narrow/${topicFragment(message.channelId, name, message.topic)}`,
    };
  }
  const others = message.participants.filter((id) => id !== user.id);
  const names = others.map(nameOf);
  return {
    key: `dm:${message.recipientId}`,
    title: others.length === 1 ? `DMs with ${names[0]}` : `Group DMs with ${names.join(', ')}`,
    url: `${base}/#narrow/dm/${others.join(',')}-${others.length === 1 ? 'dm' : 'group'}`,
  };
}

/** The e-mail of a due batch, or undefined when nothing is left to tell (all read or deleted, the
 * user gone or no longer wanting these e-mails). */
function missedMail(ctx: ReadContext, batch: EmailBatchRecord): DueEmail | undefined {
  const user = ctx.state.users.get(batch.userId);
  if (!user?.isActive || userSetting(user, 'enable_offline_email_notifications') !== true || batch.attempts >= MAX_ATTEMPTS) return undefined;
  const withContent = realmProperty(ctx.state, 'message_content_allowed_in_email_notifications') && userSetting(user, 'message_content_in_email_notifications') === true;
  const base = realmUrl(ctx.state.realm, ctx.config);
  // A user the recipient may not see (a restricted guest's) is an "Unknown user" here too, as in
  // push notifications and the API.
  const accessible = accessibleUsers(ctx, user);
  const nameOf = (id: number): string => {
    const other = ctx.state.users.get(id);
    return other && sees(accessible, other) ? other.fullName : INACCESSIBLE_USER_NAME;
  };
  const conversations = new Map<string, MissedConversation>();
  const messageIds: number[] = [];
  for (const id of batch.messageIds) {
    const message = ctx.store.messages.get(id);
    const flags = message && ctx.store.userMessages.get(user.id, message.recipientId, id);
    if (!message || flags === undefined || flags & Flag.read) continue;
    const { key, ...where } = conversationOf(ctx, user, message, base, nameOf);
    let conversation = conversations.get(key);
    if (!conversation) conversations.set(key, (conversation = { ...where, messages: [] }));
    const senderName = nameOf(message.senderId);
    conversation.messages.push(withContent ? { senderName, text: plainText(message.renderedContent), html: message.renderedContent } : { senderName, text: null, html: null });
    messageIds.push(id);
  }
  if (messageIds.length === 0) return undefined;
  const mail = missedMessageMail({ to: user.email, realmName: ctx.state.realm.name, realmUrl: base, conversations: [...conversations.values()], unsubscribeUrl: `${base}${unsubscribePath(user)}` });
  return { userId: user.id, messageIds: batch.messageIds, mail };
}

/** The e-mails due at `nowMs`, the batches to drop, and when the next batch falls due. */
export function dueEmails(ctx: ReadContext, nowMs: number): { emails: DueEmail[]; dropped: BatchPart[]; next: number | null } {
  const emails: DueEmail[] = [];
  const dropped: BatchPart[] = [];
  let next: number | null = null;
  for (const batch of ctx.store.emailBatches.ofRealm(ctx.state.realm.id)) {
    if (batch.dueAt * 1000 > nowMs) {
      next = Math.min(next ?? Infinity, batch.dueAt * 1000);
      continue;
    }
    const due = missedMail(ctx, batch);
    if (due) emails.push(due);
    else dropped.push({ userId: batch.userId, messageIds: batch.messageIds });
  }
  return { emails, dropped, next };
}

/** The messages of a user's batch one e-mail dealt with. */
export interface BatchPart {
  userId: number;
  messageIds: number[];
}

export interface EmailSettlement {
  /** Taken by the SMTP server, or with nothing left to tell: these batches lose those messages. */
  mailed: BatchPart[];
  /** Refused or unreachable: tried again later. */
  mailFailed: number[];
}

/** Records what became of the e-mails of a pass. Messages that joined a batch while its e-mail was
 * being sent stay, for an e-mail a batching period later. */
export function settleEmails(ctx: CommandContext, input: EmailSettlement): void {
  const realmId = ctx.state.realm.id;
  for (const { userId, messageIds } of input.mailed) {
    const batch = ctx.store.emailBatches.get(realmId, userId);
    if (!batch) continue;
    const sent = new Set(messageIds);
    const rest = batch.messageIds.filter((id) => !sent.has(id));
    if (rest.length === 0) ctx.remove('emailBatch', batch);
    else ctx.save('emailBatch', { ...batch, messageIds: rest, attempts: 0, dueAt: ctx.now + Number(userSetting(ctx.state.users.get(userId)!, 'email_notifications_batching_period_seconds')) });
  }
  for (const userId of input.mailFailed) {
    const batch = ctx.store.emailBatches.get(realmId, userId);
    if (batch) ctx.save('emailBatch', { ...batch, attempts: batch.attempts + 1, dueAt: ctx.now + backoff(RETRY_FIRST_SECONDS, RETRY_MAX_SECONDS, batch.attempts) });
  }
}
