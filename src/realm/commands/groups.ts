// User-group commands and register's `user_group` state.
import { groupView } from '../../groups/view.js';
import { readCommand, type ReadContext } from '../context.js';

function groupList(ctx: ReadContext, includeDeactivated: boolean) {
  return [...ctx.state.groups.values()].filter((group) => includeDeactivated || !group.deactivated).map((group) => groupView(group, ctx.state.users.values()));
}

export const groupCommands = {
  'groups.list': readCommand((ctx, input: { includeDeactivated: boolean }) => groupList(ctx, input.includeDeactivated)),
};

/** Register's groups: deactivated ones only for clients that declare include_deactivated_groups. */
export const groupsInitialState = (ctx: ReadContext, includeDeactivated: boolean) => ({ realm_user_groups: groupList(ctx, includeDeactivated) });
