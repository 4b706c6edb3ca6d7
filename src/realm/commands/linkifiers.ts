// Linkifiers (spec endpoint 18 and the rest): administrators define, change, remove and reorder
// them; `realm_linkifiers` events; register state.
import { errors } from '../../errors.js';
import { checkLinkifier, type LinkifierRecord } from '../../messages/linkifiers.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { requireAdmin } from './admin.js';
import { checkOrder } from './order.js';
import { linkifierView } from '../../messages/linkifiers.js';

export interface LinkifierInput {
  pattern: string;
  urlTemplate: string;
  reverseTemplate: string | null;
  alternativeUrlTemplates: string[];
}

function existing(ctx: CommandContext, id: number): LinkifierRecord {
  const record = ctx.state.linkifiers().find((candidate) => candidate.id === id);
  if (!record) throw errors.badRequest('Linkifier not found.');
  return record;
}

function announce(ctx: CommandContext): void {
  const everyone = ctx.activeUserIds();
  // Linkifiers are URL templates: clients that do not declare they understand them hear nothing.
  ctx.emit({ type: 'realm_linkifiers', realm_linkifiers: ctx.state.linkifiers().map(linkifierView) }, everyone, { capability: { name: 'linkifier_url_template', declared: true } });
}

function definition(input: LinkifierInput, base: Pick<LinkifierRecord, 'id' | 'realmId' | 'order'>): LinkifierRecord {
  const reverseTemplate = checkLinkifier(input.pattern, input.urlTemplate, input.reverseTemplate, input.alternativeUrlTemplates);
  return { ...base, pattern: input.pattern, urlTemplate: input.urlTemplate, reverseTemplate, alternativeUrlTemplates: input.alternativeUrlTemplates };
}

export const linkifierCommands = {
  'linkifiers.list': readCommand((ctx) => ctx.state.linkifiers().map(linkifierView)),

  'linkifiers.create': writeCommand((ctx, input: LinkifierInput) => {
    requireAdmin(ctx);
    const order = Math.max(-1, ...ctx.state.linkifiers().map((record) => record.order)) + 1;
    const record = definition(input, { id: ctx.store.nextId('linkifier'), realmId: ctx.state.realm.id, order });
    ctx.save('linkifier', record);
    announce(ctx);
    return { id: record.id };
  }),

  /** Spec endpoint 18. */
  'linkifiers.update': writeCommand((ctx, input: LinkifierInput & { id: number }) => {
    requireAdmin(ctx);
    const current = existing(ctx, input.id);
    ctx.save('linkifier', definition(input, current));
    announce(ctx);
    return {};
  }),

  'linkifiers.delete': writeCommand((ctx, input: { id: number }) => {
    requireAdmin(ctx);
    const record = existing(ctx, input.id);
    ctx.remove('linkifier', record);
    announce(ctx);
    return {};
  }),

  'linkifiers.reorder': writeCommand((ctx, input: { order: number[] }) => {
    requireAdmin(ctx);
    const records = ctx.state.linkifiers();
    checkOrder(records.map((record) => record.id), input.order);
    input.order.forEach((id, index) => ctx.save('linkifier', { ...existing(ctx, id), order: index }));
    announce(ctx);
    return {};
  }),
};

/** Register's linkifiers: none for a client that does not declare linkifier_url_template. */
export const linkifiersInitialState = (ctx: ReadContext, templates: boolean) => ({ realm_linkifiers: templates ? ctx.state.linkifiers().map(linkifierView) : [] });
