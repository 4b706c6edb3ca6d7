// Code playgrounds: administrators add and remove them; `realm_playgrounds` events to everyone and
// register state. Removing the playground of the organization's default code block language
// resets that setting, as Zulip does.
import { errors } from '../../errors.js';
import { checkPlayground, playgroundView, type PlaygroundInput, type PlaygroundRecord } from '../../messages/playgrounds.js';
import { writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { requireAdmin } from './admin.js';

const playgroundsOf = (ctx: ReadContext): PlaygroundRecord[] => [...ctx.store.playgrounds.ofRealm(ctx.state.realm.id)];

function announce(ctx: CommandContext): void {
  ctx.emit({ type: 'realm_playgrounds', realm_playgrounds: playgroundsOf(ctx).map(playgroundView) }, ctx.activeUserIds());
}

function resetDefaultLanguage(ctx: CommandContext, language: string): void {
  const { default_code_block_language: current, ...properties } = ctx.state.realm.properties ?? {};
  if (current !== language) return;
  ctx.saveRealm({ properties });
  ctx.emit({ type: 'realm', op: 'update', property: 'default_code_block_language', value: '' }, ctx.activeUserIds());
}

export const playgroundCommands = {
  'playgrounds.create': writeCommand((ctx, input: PlaygroundInput) => {
    requireAdmin(ctx);
    const playground = checkPlayground(input, playgroundsOf(ctx));
    const record = { ...playground, id: ctx.store.nextId('playground'), realmId: ctx.state.realm.id };
    ctx.save('playground', record);
    announce(ctx);
    return { id: record.id };
  }),

  'playgrounds.delete': writeCommand((ctx, input: { id: number }) => {
    requireAdmin(ctx);
    const record = ctx.store.playgrounds.get(ctx.state.realm.id, input.id);
    if (!record) throw errors.badRequest('Invalid playground');
    ctx.remove('playground', record);
    resetDefaultLanguage(ctx, record.pygmentsLanguage);
    announce(ctx);
    return {};
  }),
};

export const playgroundsInitialState = (ctx: ReadContext) => ({ realm_playgrounds: playgroundsOf(ctx).map(playgroundView) });
