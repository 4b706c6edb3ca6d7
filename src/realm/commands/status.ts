// User status (spec endpoint 7): only passed fields change; `user_status` events; register state.
import { errors } from '../../errors.js';
import type { ZulipEvent } from '../../events/types.js';
import { checkEmoji, type Emoji, type EmojiProblem } from '../../users/emoji.js';
import type { UserStatus } from '../../users/records.js';
import { readCommand, writeCommand, type CommandContext } from '../context.js';

export const MAX_STATUS_TEXT_LENGTH = 60;

export interface StatusInput {
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
  away?: boolean;
}

const noStatus: UserStatus = { text: '', emoji: null, away: false };

const problems: Record<EmojiProblem, (name: string) => string> = {
  'unknown name': (name) => `Emoji '${name}' does not exist`,
  'invalid name': () => 'Invalid emoji name.',
  'invalid code': () => 'Invalid emoji code.',
  'invalid custom emoji': () => 'Invalid custom emoji.',
};

/** The status as Zulip reports it: only what is set. */
export function statusView(status: UserStatus | undefined) {
  const view: { status_text?: string; emoji_name?: string; emoji_code?: string; reaction_type?: string; away?: true } = {};
  if (!status) return view;
  if (status.text !== '') view.status_text = status.text;
  if (status.emoji) Object.assign(view, { emoji_name: status.emoji.emojiName, emoji_code: status.emoji.emojiCode, reaction_type: status.emoji.reactionType });
  if (status.away) view.away = true;
  return view;
}

function resolveEmoji(input: StatusInput): Emoji | null | undefined {
  if (input.emojiName === undefined) {
    if (input.emojiCode !== undefined || input.reactionType !== undefined) {
      throw errors.badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
    }
    return undefined;
  }
  // An empty name clears the emoji.
  if (input.emojiName === '') return null;
  const checked = checkEmoji(input.emojiName, input.emojiCode, input.reactionType);
  if (typeof checked === 'string') throw errors.badRequest(problems[checked](input.emojiName));
  return checked;
}

export const statusCommands = {
  'users.setStatus': writeCommand((ctx, input: StatusInput) => {
    const user = ctx.user;
    if (Object.values(input).every((value) => value === undefined)) throw errors.badRequest('Client did not pass any new values.');
    const text = input.statusText?.trim();
    if (text !== undefined && [...text].length > MAX_STATUS_TEXT_LENGTH) {
      throw errors.badRequest(`status_text is too long (limit: ${MAX_STATUS_TEXT_LENGTH} characters)`);
    }
    const emoji = resolveEmoji(input);
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
    if (emoji !== undefined) Object.assign(event, { emoji_name: emoji?.emojiName ?? '', emoji_code: emoji?.emojiCode ?? '', reaction_type: emoji?.reactionType ?? '' });
    if (input.away !== undefined) event.away = status.away;
    const everyone = ctx.activeUserIds();
    ctx.emit(event, everyone);
    return {};
  }),

  'users.getStatus': readCommand((ctx, input: { userId: number }) => {
    const user = ctx.state.users.get(input.userId);
    if (!user) throw errors.noSuchUser();
    return statusView(user.status);
  }),
};

export function statusInitialState(ctx: CommandContext) {
  const statuses: Record<string, ReturnType<typeof statusView>> = {};
  for (const user of ctx.state.users.values()) {
    const view = statusView(user.status);
    if (user.isActive && Object.keys(view).length > 0) statuses[String(user.id)] = view;
  }
  return { user_status: statuses };
}
