// User status (spec endpoint 7): only passed fields change; `user_status` events; register state.
import { presenceEnabledChanged } from './presence.js';
import { errors } from '../../errors.js';
import type { ZulipEvent } from '../../events/types.js';
import { checkEmoji, emojiProblemMessages, type Emoji, type ReactionType } from '../../users/emoji.js';
import { isAdmin, type UserStatus } from '../../users/records.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { customEmojiOf } from './customEmoji.js';
import { accessibleUsers, accessorsOf, checkCanAccess } from './userAccess.js';

export const MAX_STATUS_TEXT_LENGTH = 60;

export interface StatusInput {
  /** Another user's status, set by an administrator (POST /users/{id}/status); absent: one's own. */
  userId?: number;
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
  away?: boolean;
}

const noStatus: UserStatus = { text: '', emoji: null, away: false };

/** The project's spec calls Zulip's zulip_extra_emoji service_extra_emoji in statuses. */
const statusReactionType = (type: ReactionType) => (type === 'zulip_extra_emoji' ? 'service_extra_emoji' : type);

/** The status as Zulip reports it: only what is set. */
export function statusView(status: UserStatus | undefined) {
  const view: { status_text?: string; emoji_name?: string; emoji_code?: string; reaction_type?: string; away?: true } = {};
  if (!status) return view;
  if (status.text !== '') view.status_text = status.text;
  if (status.emoji) Object.assign(view, { emoji_name: status.emoji.emojiName, emoji_code: status.emoji.emojiCode, reaction_type: statusReactionType(status.emoji.reactionType) });
  if (status.away) view.away = true;
  return view;
}

function resolveEmoji(ctx: CommandContext, input: StatusInput): Emoji | null | undefined {
  if (input.emojiName === undefined) {
    if (input.emojiCode !== undefined || input.reactionType !== undefined) {
      throw errors.badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
    }
    return undefined;
  }
  // An empty name clears the emoji.
  if (input.emojiName === '') return null;
  const checked = checkEmoji(customEmojiOf(ctx.state), input.emojiName, input.emojiCode, input.reactionType);
  if (typeof checked === 'string') throw errors.badRequest(emojiProblemMessages[checked](input.emojiName));
  return checked;
}

/** Whose status a request changes: one's own, or, for an administrator, another active user's. */
function statusOwner(ctx: CommandContext, userId: number | undefined) {
  const requester = ctx.user;
  if (userId === undefined || userId === requester.id) return requester;
  if (!isAdmin(requester)) throw errors.insufficientRights();
  const target = ctx.state.users.get(userId);
  if (!target?.isActive) throw errors.noSuchUser();
  return target;
}

export const statusCommands = {
  'users.setStatus': writeCommand((ctx, input: StatusInput) => {
    const user = statusOwner(ctx, input.userId);
    const { userId: _target, ...changes } = input;
    // Zulip's message, word for word ("any" here is English, not a type).
    if (Object.values(changes).every((value) => value === undefined)) throw errors.badRequest('Client did not pass any new values.');
    const text = input.statusText?.trim();
    if (text !== undefined && [...text].length > MAX_STATUS_TEXT_LENGTH) {
      throw errors.badRequest(`status_text is too long (limit: ${MAX_STATUS_TEXT_LENGTH} characters)`);
    }
    const emoji = resolveEmoji(ctx, input);
    const before = user.status ?? noStatus;
    const status: UserStatus = {
      text: text ?? before.text,
      emoji: emoji === undefined ? before.emoji : emoji,
      away: input.away ?? before.away,
    };
    ctx.save('user', { ...user, status });
    // The event carries what was passed, as Zulip's does; an emoji change carries all its fields.
    const event: ZulipEvent = { type: 'user_status', user_id: user.id };
    if (input.statusText !== undefined) event.status_text = status.text;
    if (emoji !== undefined) Object.assign(event, { emoji_name: emoji?.emojiName ?? '', emoji_code: emoji?.emojiCode ?? '', reaction_type: emoji ? statusReactionType(emoji.reactionType) : '' });
    if (input.away !== undefined) event.away = status.away;
    ctx.emit(event, accessorsOf(ctx, user));
    if (status.away !== before.away) presenceEnabledChanged(ctx, user, !status.away);
    return {};
  }),

  'users.getStatus': readCommand((ctx, input: { userId: number }) => {
    const user = ctx.state.users.get(input.userId);
    if (!user) throw errors.noSuchUser();
    return statusView(checkCanAccess(ctx, ctx.user, user).status);
  }),
};

export function statusInitialState(ctx: ReadContext) {
  const statuses: Record<string, ReturnType<typeof statusView>> = {};
  const accessible = accessibleUsers(ctx, ctx.user);
  for (const user of ctx.state.users.values()) {
    if (accessible && !user.isBot && !accessible.has(user.id)) continue;
    const view = statusView(user.status);
    if (user.isActive && Object.keys(view).length > 0) statuses[String(user.id)] = view;
  }
  return { user_status: statuses };
}
