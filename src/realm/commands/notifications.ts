// Notifications of messages: queued in the commit of the message (or of the read that retracts
// them) as outbox rows, then sent after commit by the realm's notifier, which reads what is due
// (`notifications.due`, outbox.ts) and records what became of it (`notifications.settle`).
import { backoff } from '../../clock.js';
import { visibilityPolicies } from '../../machines/topic.js';
import { notificationTrigger, type NotificationCandidate } from '../../messages/notifications.js';
import { Flag, type MessageRecord, type RecipientFlags } from '../../messages/records.js';
import { realmUrl } from '../../organization/records.js';
import { e2eeMessagePayload, e2eeRemovePayload, plainText, tokenMessageBody, tokenRemoveBody, tokensByKind, type MessageSummary, type PayloadBase } from '../../push/payloads.js';
import type { OutboxRecord, PushRoute } from '../../push/records.js';
import { relayPaths, sealedDeliveries } from '../../push/relay.js';
import { userAvatarUrl } from '../../users/avatars.js';
import { apiEmail, unknownUserFace } from '../../users/view.js';
import { userSetting } from '../../users/settings.js';
import type { CommandContext, ReadContext } from '../context.js';
import { canAccessAll } from './userAccess.js';


/** A notification the relay has not taken for this long is dropped (it would only confuse). */
const GIVE_UP_SECONDS = 24 * 3600;
/** Retries wait 10 s, 20 s, 40 s, … up to 30 minutes. */
const BACKOFF_FIRST_MS = 10_000;
const BACKOFF_MAX_MS = 30 * 60_000;
/** The most notifications one pass of the notifier sends. */
const PASS_SIZE = 100;


/** The push routes that reach a user's phones now: their E2EE devices, their older tokens. */
function routesOf(ctx: ReadContext, userId: number): PushRoute[] {
  const owner = ctx.ownerOf(userId);
  const routes: PushRoute[] = [];
  if (ctx.store.pushDevices.hasRows(owner)) routes.push('e2ee');
  if (ctx.store.pushTokens.hasRows(owner)) routes.push('token');
  return routes;
}

/** The most notifications `queueNotifications` queues for a message to `recipients` users: one
 * for each push route (`routesOf`: two at most) of each. */
export const notificationsAtMost = (ctx: CommandContext, recipients: number): number => (ctx.config.pushRelay === null ? 0 : 2 * recipients);

function queue(ctx: CommandContext, userId: number, route: PushRoute, kind: OutboxRecord['kind'], messageIds: number[]): void {
  ctx.save('notification', {
    realmId: ctx.state.realm.id,
    id: ctx.store.nextId('notification'),
    userId,
    route,
    kind,
    messageIds,
    queuedAt: ctx.now,
    attempts: 0,
    dueAt: ctx.config.clock.now(),
  });
}

/** Queues the notifications a new message causes, in its commit; call from the send path. */
export function queueNotifications(ctx: CommandContext, message: MessageRecord, recipients: RecipientFlags): void {
  const push = ctx.config.pushRelay !== null;
  const mail = ctx.config.mail !== null;
  if (!push && !mail) return;
  const channel = message.channelId === null ? undefined : ctx.state.channels.get(message.channelId);
  for (const [index, userId] of recipients.userIds.entries()) {
    const flags = recipients.flags[index]!;
    const user = ctx.state.users.get(userId);
    if (!user || userId === message.senderId) continue;
    const subscription = channel ? ctx.state.subscription(channel.id, userId) : undefined;
    if (channel && !subscription) continue;
    const candidate: NotificationCandidate = {
      user,
      senderId: message.senderId,
      flags,
      subscription: subscription ?? null,
      // Read only when a rule needs it (an LMDB read per recipient).
      get topicPolicy() {
        return visibilityPolicies[(channel && ctx.store.userTopics.get(ctx.ownerOf(userId), channel.id, message.topic.toLowerCase())?.policy) ?? 0]!;
      },
      connected: ctx.holders.hasQueue(ctx.state.realm.id, userId),
    };
    if (push && notificationTrigger('push', candidate) !== null) for (const route of routesOf(ctx, userId)) queue(ctx, userId, route, 'message', [message.id]);
    if (mail && notificationTrigger('email', candidate) !== null) batchEmail(ctx, userId, message.id);
  }
}

/** The most messages one e-mail tells of; later ones in the same period are left out. */
const MAX_BATCH_MESSAGES = 500;

/** Adds a missed message to the user's pending e-mail: the first one sets when it goes out (their
 * email_notifications_batching_period_seconds from now), later ones join it. */
function batchEmail(ctx: CommandContext, userId: number, messageId: number): void {
  const realmId = ctx.state.realm.id;
  const batch = ctx.store.emailBatches.get(realmId, userId);
  if (batch && batch.messageIds.length >= MAX_BATCH_MESSAGES) return;
  if (batch) ctx.save('emailBatch', { ...batch, messageIds: [...batch.messageIds, messageId] });
  else ctx.save('emailBatch', { realmId, userId, dueAt: ctx.now + Number(userSetting(ctx.state.users.get(userId)!, 'email_notifications_batching_period_seconds')), messageIds: [messageId], attempts: 0 });
}

/** Queues the removal of the push notifications of messages a user just read; call from the flag
 * update that marks them read. */
export function retractNotifications(ctx: CommandContext, userId: number, readIds: readonly number[]): void {
  // Without a relay nothing was ever shown: no read of the user's rows on every mark-as-read.
  if (ctx.config.pushRelay === null) return;
  const shown = ctx.store.pushShown.ofOwner(ctx.ownerOf(userId));
  if (shown.length === 0) return;
  const read = new Set(readIds);
  const byRoute = new Map<PushRoute, number[]>();
  for (const row of shown) {
    if (!read.has(row.messageId)) continue;
    ctx.remove('pushShown', { ...row, userId });
    const ids = byRoute.get(row.route) ?? [];
    byRoute.set(row.route, ids);
    ids.push(row.messageId);
  }
  for (const [route, ids] of byRoute) queue(ctx, userId, route, 'remove', ids);
}

/** Records that a message's notification is on the user's phones; read meanwhile (while the relay
 * had it), its removal is queued at once. */
function showOrRetract(ctx: CommandContext, row: OutboxRecord): void {
  const [messageId] = row.messageIds as [number];
  const message = ctx.store.messages.get(messageId);
  const flags = message && ctx.store.userMessages.get(row.userId, message.recipientId, messageId);
  if (flags !== undefined && flags & Flag.read) queue(ctx, row.userId, row.route, 'remove', [messageId]);
  else ctx.save('pushShown', { userId: row.userId, messageId, route: row.route });
}

/** A notification ready for the relay: where it goes and what it says. */
export interface PushDelivery {
  id: number;
  path: string;
  body: object;
}

export function payloadBase(ctx: ReadContext, userId: number): PayloadBase {
  const realm = ctx.state.realm;
  return { realmUrl: realmUrl(realm, ctx.config), realmName: realm.name, realmId: realm.id, userId };
}

/** The message as a notification tells it, or undefined when the user may no longer be notified of
 * it (deleted, read, no longer theirs). */
function summary(ctx: ReadContext, base: PayloadBase, userId: number, messageId: number): MessageSummary | undefined {
  const message = ctx.store.messages.get(messageId);
  if (!message || message.realmId !== ctx.state.realm.id) return undefined;
  const flags = ctx.store.userMessages.get(userId, message.recipientId, message.id);
  const sender = ctx.state.users.get(message.senderId);
  const viewer = ctx.state.users.get(userId);
  if (flags === undefined || flags & Flag.read || !sender || !viewer) return undefined;
  // A restricted guest is told of a channel message from someone they may not see as from an
  // "Unknown user", as everywhere else they meet it (Zulip's can_access_sender).
  const face = canAccessAll(ctx, viewer, [sender]) ? { email: apiEmail(sender, ctx.fakeEmailDomain), fullName: sender.fullName, avatarUrl: userAvatarUrl(sender) } : unknownUserFace(sender.id, ctx.fakeEmailDomain);
  return {
    message,
    senderName: face.fullName,
    senderEmail: face.email,
    senderAvatarUrl: face.avatarUrl.startsWith('/') ? `${base.realmUrl}${face.avatarUrl}` : face.avatarUrl,
    channelName: message.channelId === null ? null : (ctx.state.channels.get(message.channelId)?.name ?? null),
    text: plainText(message.renderedContent),
  };
}

/** The relay request of an outbox row, or undefined when it is to be dropped unsent. */
function delivery(ctx: ReadContext, row: OutboxRecord): PushDelivery | undefined {
  const user = ctx.state.users.get(row.userId);
  if (!user?.isActive || row.queuedAt < ctx.now - GIVE_UP_SECONDS) return undefined;
  const base = payloadBase(ctx, row.userId);
  const owner = ctx.ownerOf(row.userId);
  const message = row.kind === 'message' ? summary(ctx, base, row.userId, row.messageIds[0]!) : undefined;
  if (row.kind === 'message' && !message) return undefined;
  if (row.route === 'e2ee') {
    const devices = ctx.store.pushDevices.ofOwner(owner);
    if (devices.length === 0) return undefined;
    const payload = message ? e2eeMessagePayload(base, message) : e2eeRemovePayload(base, row.messageIds);
    return { id: row.id, path: relayPaths.e2eeNotify, body: { realm_url: base.realmUrl, user_id: row.userId, devices: sealedDeliveries(devices, payload) } };
  }
  const tokens = ctx.store.pushTokens.ofOwner(owner);
  if (tokens.length === 0) return undefined;
  const byKind = tokensByKind(tokens);
  return { id: row.id, path: relayPaths.tokenNotify, body: message ? tokenMessageBody(base, message, byKind) : tokenRemoveBody(base, row.messageIds, byKind) };
}

/** The push notifications due now, ready for the relay, and those to drop unsent. */
export function duePushes(ctx: ReadContext, nowMs: number): { push: PushDelivery[]; dropped: number[]; next: number | null } {
  const due: { push: PushDelivery[]; dropped: number[]; next: number | null } = { push: [], dropped: [], next: null };
  for (const row of ctx.store.notificationOutbox.ofRealm(ctx.state.realm.id)) {
    if (row.dueAt > nowMs || due.push.length >= PASS_SIZE) {
      due.next = Math.min(due.next ?? Infinity, row.dueAt > nowMs ? row.dueAt : nowMs);
      continue;
    }
    const ready = delivery(ctx, row);
    if (ready) due.push.push(ready);
    else due.dropped.push(row.id);
  }
  return due;
}

export interface PushSettlement {
  /** Taken by the relay: removed from the outbox. */
  delivered: number[];
  /** Refused or unreachable: tried again later. */
  failed: number[];
  dropped: number[];
}

/** Records what the relay did with a pass's notifications. */
export function settlePushes(ctx: CommandContext, input: PushSettlement): void {
  const realmId = ctx.state.realm.id;
  const rows = (ids: number[]) => ids.flatMap((id) => ctx.store.notificationOutbox.get(realmId, id) ?? []);
  for (const row of rows(input.delivered)) {
    ctx.remove('notification', row);
    if (row.kind === 'message') showOrRetract(ctx, row);
  }
  for (const row of rows(input.dropped)) ctx.remove('notification', row);
  for (const row of rows(input.failed)) {
    ctx.save('notification', { ...row, attempts: row.attempts + 1, dueAt: ctx.config.clock.now() + backoff(BACKOFF_FIRST_MS, BACKOFF_MAX_MS, row.attempts) });
  }
}
