// What the HTTP layer reads to have a message rendered off the realm's thread (a render worker):
// the context's version with the sender's options, and, when a worker lacks that version, the
// context itself. prepareMessage uses such a rendering only while the version is still the realm's.
import { renderContextOf, renderOptionsOf } from '../../messages/render.js';
import { instantCommand } from '../context.js';

export const renderingCommands = {
  'render.version': instantCommand((ctx) => ({ version: ctx.state.renderVersion, options: renderOptionsOf(ctx.user, ctx.config) })),
  'render.context': instantCommand((ctx) => renderContextOf(ctx.state, ctx.config)),
};
