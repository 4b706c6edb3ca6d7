// User-group commands and register's `user_group` state.
import { groupView } from '../../groups/view.js';
import { readCommand, type ReadContext } from '../context.js';

function groupList(ctx: ReadContext, includeDeactivated: boolean) {
  return [...ctx.state.groups.values()].filter((group) => includeDeactivated || !group.deactivated).map((group) => groupView(group, ctx.state.users.values()));
}

export const groupCommands = {
  'groups.list': readCommand((ctx, input: { includeDeactivated: boolean }) => groupList(ctx, input.includeDeactivated)),
};

export const groupsInitialState = (ctx: ReadContext) => ({ realm_user_groups: groupList(ctx, true) });
