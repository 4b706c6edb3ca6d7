// Navigation views: a user's own, added, changed and removed by fragment as Zulip does, with
// `navigation_view` events to the user's clients, and register state.
import { errors } from '../../errors.js';
import { checkViewName, checkViewText, isBuiltInView, navigationViewView, type NavigationViewRecord } from '../../users/navigationViews.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';

const userViews = (ctx: ReadContext): NavigationViewRecord[] => ctx.store.navigationViews.ofOwner(ctx.ownerOf(ctx.user.id));

function existing(ctx: CommandContext, fragment: string): NavigationViewRecord {
  const view = userViews(ctx).find((candidate) => candidate.fragment === fragment);
  if (!view) throw errors.navigationViewNotFound();
  return view;
}

const optionalName = (name: string | undefined) => (name === undefined ? undefined : checkViewText('name', name));

export const navigationViewCommands = {
  'navigationViews.list': readCommand((ctx) => userViews(ctx).map(navigationViewView)),

  'navigationViews.create': writeCommand((ctx, input: { fragment: string; isPinned: boolean; name?: string }) => {
    const userId = ctx.user.id;
    const fragment = checkViewText('fragment', input.fragment);
    const name = optionalName(input.name);
    if (name === undefined && !isBuiltInView(fragment)) throw errors.badRequest('Custom views must have a valid name.');
    const views = userViews(ctx);
    if (views.some((view) => view.fragment === fragment)) throw errors.badRequest('Navigation view already exists.');
    checkViewName(fragment, name, views);
    const view = { id: ctx.store.nextId('navigationView'), fragment, isPinned: input.isPinned, name: name ?? null };
    ctx.save('navigationView', { ...view, userId });
    ctx.emit({ type: 'navigation_view', op: 'add', navigation_view: navigationViewView(view) }, [userId]);
    return {};
  }),

  'navigationViews.update': writeCommand((ctx, input: { fragment: string; isPinned?: boolean; name?: string }) => {
    const userId = ctx.user.id;
    const fragment = checkViewText('fragment', input.fragment);
    const name = optionalName(input.name);
    checkViewName(fragment, name, userViews(ctx));
    const current = existing(ctx, fragment);
    const data = { ...(name === undefined ? {} : { name }), ...(input.isPinned === undefined ? {} : { is_pinned: input.isPinned }) };
    ctx.save('navigationView', { ...current, name: data.name ?? current.name, isPinned: data.is_pinned ?? current.isPinned, userId });
    ctx.emit({ type: 'navigation_view', op: 'update', fragment, data }, [userId]);
    return {};
  }),

  'navigationViews.delete': writeCommand((ctx, input: { fragment: string }) => {
    const userId = ctx.user.id;
    const view = existing(ctx, checkViewText('fragment', input.fragment));
    ctx.remove('navigationView', { ...view, userId });
    ctx.emit({ type: 'navigation_view', op: 'remove', fragment: view.fragment }, [userId]);
    return {};
  }),
};

export const navigationViewsInitialState = (ctx: ReadContext) => ({ navigation_views: userViews(ctx).map(navigationViewView) });
