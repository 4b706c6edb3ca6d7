// A user's own avatar (POST/DELETE /users/me/avatar): an uploaded picture or back to Gravatar, as
// Zulip's set_avatar_source. Refused while the organization disables avatar changes, except for
// administrators. The answer names the picture replaced, which the caller removes from storage once
// the change is durable.
import { errors } from '../../errors.js';
import { realmProperty } from '../../organization/settings.js';
import { avatarFields, userAvatarUrl } from '../../users/avatars.js';
import { isAdmin, type UserRecord } from '../../users/records.js';
import { writeCommand, type CommandContext } from '../context.js';
import { accessorsOf } from './userAccess.js';

function changeAvatar(ctx: CommandContext, change: Pick<UserRecord, 'avatarSource' | 'avatarKey'>) {
  const user = ctx.user;
  if (realmProperty(ctx.state, 'avatar_changes_disabled') && !isAdmin(user)) throw errors.avatarChangesDisabled();
  const updated: UserRecord = { ...user, ...change, avatarVersion: user.avatarVersion + 1 };
  ctx.save('user', updated);
  ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: user.id, ...avatarFields(updated) } }, accessorsOf(ctx, updated));
  return { avatarUrl: userAvatarUrl(updated), replaced: user.avatarKey };
}

export const avatarCommands = {
  'avatars.set': writeCommand((ctx, input: { imageKey: string }) => changeAvatar(ctx, { avatarSource: 'U', avatarKey: input.imageKey })),
  'avatars.remove': writeCommand((ctx) => changeAvatar(ctx, { avatarSource: 'G', avatarKey: undefined })),
};
