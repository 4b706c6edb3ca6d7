// Typing notifications (POST /typing, POST /messages/{id}/typing): checked as Zulip's
// zerver/views/typing.py checks them and announced at once; nothing is stored, nothing is written.
import { normalizeTopic } from '../../messages/emptyTopic.js';
import { canReadChannel } from '../../channels/access.js';
import { errors } from '../../errors.js';
import type { TypingOp, TypingPerson } from '../../events/catalogue.js';
import { checkContentEdit } from '../../messages/editRights.js';
import { MAX_CHANNEL_SIZE_FOR_TYPING } from '../../messages/typing.js';
import type { UserRecord } from '../../users/records.js';
import { userSetting } from '../../users/settings.js';
import { apiEmail } from '../../users/view.js';
import { liveCommand, type LiveContext, type ReadContext } from '../context.js';
import { accessibleMessage } from './messageAccess.js';
import { checkMaySend } from './messages.js';

export type TypingInput = { op: TypingOp } & ({ type: 'direct'; to: number[] | undefined } | { type: 'stream'; channelId: number | undefined; topic: string | undefined });

const receivesTyping = (user: UserRecord): boolean => user.isActive && userSetting(user, 'receives_typing_notifications') === true;

function checkSendsTyping(user: UserRecord, kind: 'stream' | 'direct'): void {
  if (kind === 'stream' && userSetting(user, 'send_stream_typing_notifications') !== true) throw errors.badRequest('User has disabled typing notifications for channel messages');
  if (kind === 'direct' && userSetting(user, 'send_private_typing_notifications') !== true) throw errors.badRequest('User has disabled typing notifications for direct messages');
}

/** Who in a channel is told: its subscribers who want typing notifications, unless it is too big
 * for them (then nobody). */
function channelAudience(ctx: ReadContext, channelId: number): number[] {
  const subscribers = ctx.state.subscriberIds(channelId);
  if (subscribers.length > MAX_CHANNEL_SIZE_FOR_TYPING) return [];
  return subscribers.filter((id) => receivesTyping(ctx.state.users.get(id)!));
}

const person = (ctx: ReadContext, user: UserRecord): TypingPerson => ({ user_id: user.id, email: apiEmail(user, ctx.fakeEmailDomain) });

function typingInChannel(ctx: LiveContext, sender: UserRecord, op: TypingOp, channelId: number | undefined, rawTopic: string | undefined): void {
  if (channelId === undefined) throw errors.badRequest("Missing 'stream_id' argument");
  if (rawTopic === undefined) throw errors.badRequest('Missing topic');
  checkSendsTyping(sender, 'stream');
  const channel = ctx.state.channels.get(channelId);
  if (!channel || !canReadChannel(ctx.state, channel, sender)) throw errors.badRequest('Invalid channel ID');
  checkMaySend(ctx, channel, sender);
  const topic = normalizeTopic(rawTopic);
  ctx.emit({ type: 'typing', op, message_type: 'stream', sender: person(ctx, sender), stream_id: channel.id, topic }, channelAudience(ctx, channel.id), { capability: { name: 'stream_typing_notifications', declared: true } });
}

function typingInDirect(ctx: LiveContext, sender: UserRecord, op: TypingOp, to: number[] | undefined): void {
  if (to === undefined) throw errors.badRequest("Missing 'to' argument");
  if (to.length === 0) throw errors.badRequest("Empty 'to' list");
  checkSendsTyping(sender, 'direct');
  // A bad ID refuses the whole request: a partial list would name another conversation.
  const ids = to.includes(sender.id) ? to : [...to, sender.id];
  const participants = ids.map((id) => {
    const user = ctx.state.users.get(id);
    if (!user) throw errors.badRequest(`Invalid user ID ${id}`);
    return user;
  });
  const recipients = participants.map((user) => person(ctx, user));
  ctx.emit({ type: 'typing', op, message_type: 'direct', sender: person(ctx, sender), recipients }, participants.filter(receivesTyping).map((user) => user.id));
}

export const typingCommands = {
  'typing.set': liveCommand((ctx, input: TypingInput) => {
    const sender = ctx.user;
    if (input.type === 'stream') typingInChannel(ctx, sender, input.op, input.channelId, input.topic);
    else typingInDirect(ctx, sender, input.op, input.to);
    return {};
  }),

  /** Someone edits a message they may edit (Zulip: access and edit rights, no grace period). */
  'typing.editMessage': liveCommand((ctx, input: { messageId: number; op: TypingOp }) => {
    const editor = ctx.user;
    const { message } = accessibleMessage(ctx, editor, input.messageId);
    checkContentEdit(ctx.state, editor, message, ctx.now);
    const event = { type: 'typing_edit_message', op: input.op, sender_id: editor.id, message_id: message.id } as const;
    if (message.channelId !== null) {
      checkSendsTyping(editor, 'stream');
      ctx.emit({ ...event, recipient: { type: 'channel', channel_id: message.channelId, topic: message.topic } }, channelAudience(ctx, message.channelId));
    } else {
      checkSendsTyping(editor, 'direct');
      const audience = ctx.state.conversationMembers(message).filter((id) => receivesTyping(ctx.state.users.get(id)!));
      ctx.emit({ ...event, recipient: { type: 'direct', user_ids: audience } }, audience);
    }
    return {};
  }),
};
