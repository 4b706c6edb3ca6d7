// Questions a client asks about messages it already has: who has read one (read receipts), and
// which of them belong in a narrow it shows (GET /messages/matches_narrow).
import { errors } from '../../errors.js';
import { matchesNarrow, narrowSearch, resolveNarrow, type RawTerm } from '../../messages/narrow.js';
import { Flag } from '../../messages/records.js';
import { searchHighlights } from '../../messages/search.js';
import { realmProperty } from '../../organization/settings.js';
import { hasMuted } from '../../users/records.js';
import { userSetting } from '../../users/settings.js';
import { readCommand } from '../context.js';
import { accessibleMessage, narrowLookup } from './messageAccess.js';
import { rowHolders } from './rowHolders.js';

export const messageCheckCommands = {
  /** Who has read a message: never its sender, nor users whose send_read_receipts is off, nor
   * anyone muted by or muting the requester (Zulip's read_receipts view). */
  'messages.readReceipts': readCommand((ctx, input: { messageId: number }) => {
    if (!realmProperty(ctx.state, 'enable_read_receipts')) throw errors.badRequest('Read receipts are disabled in this organization.');
    const viewer = ctx.user;
    const { message } = accessibleMessage(ctx, viewer, input.messageId);
    const readers: number[] = [];
    for (const id of rowHolders(ctx, message)) {
      const reader = ctx.state.users.get(id);
      if (!reader?.isActive || id === message.senderId || userSetting(reader, 'send_read_receipts') === false) continue;
      if (hasMuted(reader, viewer.id) || hasMuted(viewer, id)) continue;
      const flags = ctx.store.userMessages.get(id, message.recipientId, message.id);
      if (flags !== undefined && flags & Flag.read) readers.push(id);
    }
    return readers.sort((a, b) => a - b);
  }),

  /** The user's messages among these that match the narrow, with what GET /messages would show
   * for them (the content and the escaped topic, highlighted for a search). */
  'messages.matchNarrow': readCommand((ctx, input: { messageIds: number[]; narrow: RawTerm[] }) => {
    const viewer = ctx.user;
    const terms = resolveNarrow(ctx.state, viewer, input.narrow, ctx.fakeEmailDomain, narrowLookup(ctx, viewer));
    const matches: Record<string, { match_content: string; match_subject: string }> = {};
    for (const id of new Set(input.messageIds)) {
      const message = ctx.store.messages.get(id);
      if (message?.realmId !== ctx.state.realm.id) continue;
      const flags = ctx.store.userMessages.get(viewer.id, message.recipientId, id);
      if (flags !== undefined && matchesNarrow(terms, message, flags)) matches[id] = searchHighlights(narrowSearch(terms), message);
    }
    return matches;
  }),
};
