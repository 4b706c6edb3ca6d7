// Custom emoji (GET/POST/DELETE /realm/emoji): who may add one is the organization's
// can_add_custom_emoji_group; its author or an administrator may deactivate it; every change is
// announced to everyone: as the one emoji to clients that declared individual_emoji_changes (Zulip
// 12's realm_emoji add and update_one), as the realm's whole table to the others.
import { emojiNameProblem, realmEmojiView, type RealmEmojiRecord } from '../../emoji/custom.js';
import { errors } from '../../errors.js';
import { satisfies } from '../../groups/membership.js';
import { realmGroupSetting } from '../../organization/settings.js';
import { isAdmin } from '../../users/records.js';
import type { RealmEmojiChange } from '../../events/catalogue.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';

const realmEmojiTable = (ctx: ReadContext) => Object.fromEntries([...ctx.state.realmEmoji.values()].map((record) => [String(record.id), realmEmojiView(record)]));

export const realmEmojiInitialState = (ctx: ReadContext) => ({ realm_emoji: realmEmojiTable(ctx) });

function announce(ctx: CommandContext, change: RealmEmojiChange): void {
  const everyone = ctx.activeUserIds();
  ctx.emit(change, everyone, { capability: { name: 'individual_emoji_changes', declared: true } });
  ctx.emit({ type: 'realm_emoji', op: 'update', realm_emoji: realmEmojiTable(ctx) }, everyone, { capability: { name: 'individual_emoji_changes', declared: false } });
}

const activeNamed = (ctx: ReadContext, name: string): RealmEmojiRecord | undefined => [...ctx.state.realmEmoji.values()].find((record) => !record.deactivated && record.name === name);

export const realmEmojiCommands = {
  'realmEmoji.list': readCommand(realmEmojiTable),

  'realmEmoji.add': writeCommand((ctx, input: { name: string; imageKey: string }) => {
    const author = checkNewEmoji(ctx, input.name);
    const emoji: RealmEmojiRecord = { id: ctx.store.nextId('realmEmoji'), realmId: ctx.state.realm.id, name: input.name, imageKey: input.imageKey, authorId: author.id, deactivated: false };
    ctx.save('realmEmoji', emoji);
    announce(ctx, { type: 'realm_emoji', op: 'add', emoji: realmEmojiView(emoji) });
    return {};
  }),

  'realmEmoji.deactivate': writeCommand((ctx, input: { name: string }) => {
    const user = ctx.user;
    const emoji = activeNamed(ctx, input.name);
    if (!emoji) throw errors.badRequest(`Emoji '${input.name}' does not exist`);
    if (!isAdmin(user) && emoji.authorId !== user.id) throw errors.badRequest('Must be an organization administrator or emoji author');
    ctx.save('realmEmoji', { ...emoji, deactivated: true });
    announce(ctx, { type: 'realm_emoji', op: 'update_one', emoji_id: String(emoji.id), data: { deactivated: true } });
    return {};
  }),
};

function checkNewEmoji(ctx: ReadContext, name: string) {
  const author = ctx.user;
  if (!satisfies(ctx.state, realmGroupSetting(ctx.state, 'can_add_custom_emoji_group'), author)) throw errors.insufficientRights();
  const problem = emojiNameProblem(name);
  if (problem) throw errors.badRequest(problem);
  if (activeNamed(ctx, name)) throw errors.badRequest('A custom emoji with this name already exists.');
  return author;
}
