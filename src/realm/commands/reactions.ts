// Emoji reactions (POST/DELETE /messages/{id}/reactions), as Zulip's zerver/actions/reactions.py:
// reactions are part of the stored message; `reaction` events go to everyone who can see it.
import { errors } from '../../errors.js';
import type { ReactionEvent } from '../../events/catalogue.js';
import type { MessageRecord, ReactionRecord } from '../../messages/records.js';
import { reactionView } from '../../messages/view.js';
import { canonicalReactionType, checkEmojiRequest, emojiProblemMessages, requestedEmoji, type Emoji } from '../../users/emoji.js';
import { apiEmail } from '../../users/view.js';
import { writeCommand, type CommandContext } from '../context.js';
import { customEmojiOf } from './customEmoji.js';
import { accessibleMessage, messageAudience } from './messageAccess.js';

export interface ReactionInput {
  messageId: number;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

/** The code and type a request names, the missing ones looked up by name. */
function requested(ctx: CommandContext, name: string, code: string | undefined, type: string | undefined) {
  const emoji = requestedEmoji(customEmojiOf(ctx.state), name, code, type);
  if (typeof emoji === 'string') throw errors.badRequest(emojiProblemMessages[emoji](name));
  return emoji;
}

const isReaction = (reaction: ReactionRecord, code: string, type: string, userId?: number) =>
  reaction.emojiCode === code && reaction.reactionType === type && (userId === undefined || reaction.userId === userId);

/** Stores the message's new reactions and announces the change. */
function saveReactions(ctx: CommandContext, message: MessageRecord, reactions: ReactionRecord[], change: { op: 'add' | 'remove'; reaction: ReactionRecord }): void {
  ctx.saveMessage({ ...message, reactions }, message);
  const reactor = ctx.user;
  const event: ReactionEvent = {
    type: 'reaction',
    op: change.op,
    message_id: message.id,
    ...reactionView(change.reaction),
    user: { user_id: reactor.id, email: apiEmail(reactor, ctx.fakeEmailDomain), full_name: reactor.fullName, is_mirror_dummy: false },
  };
  ctx.emit(event, messageAudience(ctx, message, reactor.id));
}

export const reactionCommands = {
  /** Zulip's check_add_reaction: a reaction with the code of an existing one is a vote for it and
   * takes its name, unchecked; any other is checked against the emoji the realm has now. */
  'reactions.add': writeCommand((ctx, input: ReactionInput & { emojiName: string }) => {
    const user = ctx.user;
    const { message } = accessibleMessage(ctx, user, input.messageId);
    const { code, type } = requested(ctx, input.emojiName, input.emojiCode, input.reactionType);
    const reactions = message.reactions ?? [];
    if (reactions.some((reaction) => isReaction(reaction, code, type, user.id))) throw errors.reactionExists();
    const voted = reactions.find((reaction) => isReaction(reaction, code, type));
    let emoji: Emoji;
    if (voted) emoji = { emojiName: voted.emojiName, emojiCode: voted.emojiCode, reactionType: voted.reactionType };
    else {
      const checked = checkEmojiRequest(customEmojiOf(ctx.state), input.emojiName, code, type);
      if (typeof checked === 'string') throw errors.badRequest(emojiProblemMessages[checked](input.emojiName));
      emoji = checked;
    }
    const reaction: ReactionRecord = { ...emoji, userId: user.id };
    saveReactions(ctx, message, [...reactions, reaction], { op: 'add', reaction });
    return {};
  }),

  /** Zulip's remove_reaction: by code (or by name, its code looked up) and type, unicode_emoji
   * unless given; what exists is removed even if the emoji is no longer valid. */
  'reactions.remove': writeCommand((ctx, input: ReactionInput) => {
    const user = ctx.user;
    const { message } = accessibleMessage(ctx, user, input.messageId);
    const type = canonicalReactionType(input.reactionType ?? 'unicode_emoji');
    let code = input.emojiCode;
    if (code === undefined) {
      if (input.emojiName === undefined) throw errors.badRequest('At least one of the following arguments must be present: emoji_name, emoji_code');
      code = requested(ctx, input.emojiName, undefined, undefined).code;
    }
    const reactions = message.reactions ?? [];
    const reaction = reactions.find((candidate) => isReaction(candidate, code, type, user.id));
    if (!reaction) throw errors.reactionDoesNotExist();
    saveReactions(
      ctx,
      message,
      reactions.filter((candidate) => candidate !== reaction),
      { op: 'remove', reaction },
    );
    return {};
  }),
};
