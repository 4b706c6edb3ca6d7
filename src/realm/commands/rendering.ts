// What the HTTP layer reads to have a message rendered off the realm's thread (a render worker):
// the context's version with the sender's options, and, when a worker lacks that version, the
// context itself. prepareMessage uses such a rendering only while the version is still the realm's.
import { renderContextOf, renderOptionsOf } from '../../messages/render.js';
import { instantCommand } from '../context.js';

export const renderingCommands = {
  /** An edit renders with its message's sender's settings (Zulip's), a new message with the user's. */
  'render.version': instantCommand((ctx, input: { messageId?: number }) => {
    const senderId = input.messageId === undefined ? undefined : ctx.store.messages.get(input.messageId)?.senderId;
    const sender = (senderId === undefined ? undefined : ctx.state.users.get(senderId)) ?? ctx.user;
    return { version: ctx.state.renderVersion, options: renderOptionsOf(sender, ctx.config) };
  }),
  'render.context': instantCommand((ctx) => renderContextOf(ctx.state, ctx.config)),
};
