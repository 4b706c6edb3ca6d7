// Creating a user through the API or the management tools (POST /users, `manage create-user`, the
// demo seed); people joining by invitation are in invites.ts.
import { errors } from '../../errors.js';
import { isAdmin, Role } from '../../users/records.js';
import { writeCommand } from '../context.js';
import { addUser, checkNewUser, type NewUser } from './users.js';
import { greetNewUser } from './welcomeBot.js';

export const userCreationCommands = {
  /** Creates a user. Without an acting user (the management CLI, the demo seed) no rights apply;
   * through the API only administrators may, and only owners may create owners. */
  'users.create': writeCommand((ctx, input: NewUser) => {
    if (ctx.hasUser && input.role === Role.owner && ctx.user.role !== Role.owner) throw errors.ownerRequired();
    if (ctx.hasUser && !isAdmin(ctx.user)) throw errors.adminRequired();
    checkNewUser(ctx, input);
    // New users join the organization's default channels, as in Zulip; people made through the
    // API are greeted (the demo seed's and the management CLI's are not).
    const user = addUser(ctx, input, ctx.state.realm.defaultChannelIds);
    if (ctx.hasUser) greetNewUser(ctx, user);
    return { userId: user.id, apiKey: user.apiKey };
  }),

};
