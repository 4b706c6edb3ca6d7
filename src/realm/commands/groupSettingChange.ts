// Group settings as clients set them, for channels, user groups and the organization alike: a value
// is a group's ID or an anonymous group of active users and groups; a change names the new value
// and may name the old one the client saw, refused if it is no longer the current one.
import { errors } from '../../errors.js';
import type { GroupSetting } from '../../groups/records.js';
import type { RealmView } from '../../organization/state.js';

export interface SettingChange {
  new: GroupSetting;
  old?: GroupSetting;
}

export function checkGroupSetting(state: RealmView, setting: GroupSetting): GroupSetting {
  const groupIds = typeof setting === 'number' ? [setting] : setting.direct_subgroups;
  for (const id of groupIds) if (!state.groups.has(id)) throw errors.badRequest(`Invalid user group ID: ${id}`);
  if (typeof setting !== 'number') {
    for (const id of setting.direct_members) if (!state.users.get(id)?.isActive) throw errors.badRequest(`Invalid user ID: ${id}`);
  }
  return setting;
}

const normalized = (setting: GroupSetting) =>
  typeof setting === 'number' ? setting : { direct_members: [...setting.direct_members].sort(), direct_subgroups: [...setting.direct_subgroups].sort() };

const sameSetting = (a: GroupSetting, b: GroupSetting): boolean => JSON.stringify(normalized(a)) === JSON.stringify(normalized(b));

/** The setting's value after a change: checked against the current value and the realm. */
export function changedSetting(state: RealmView, current: GroupSetting, change: SettingChange): GroupSetting {
  if (change.old !== undefined && !sameSetting(change.old, current)) throw errors.badRequest(`'old' value does not match the expected value.`);
  return checkGroupSetting(state, change.new);
}
