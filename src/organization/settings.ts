// The organization's settings as the server reads them: stored values over the defaults of
// settingDefaults.ts, the deprecated policy values derived from group settings, and what clients are
// told about the values each group setting accepts (server_supported_permission_settings).
import { channelPermissionDefaults, channelPermissions } from '../channels/records.js';
import { groupPermissions, type GroupSetting } from '../groups/records.js';
import { realmGroupSettingNames, realmGroupSettings, realmPropertyDefaults, type GroupSettingRule, type RealmGroupSettingName, type RealmProperties, type RealmPropertyName } from './settingDefaults.js';
import type { RealmView } from './state.js';

export { realmGroupSettingNames, realmPropertyDefaults, type RealmGroupSettingName, type RealmPropertyName } from './settingDefaults.js';

/** The realm's value of an organization group setting: stored, or Zulip's default system group. */
/** The organization settings that name a channel (-1: none). */
export const realmChannelSettingNames = ['signup_announcements_stream_id', 'zulip_update_announcements_stream_id', 'moderation_request_channel_id'] as const;

export function realmGroupSetting(state: RealmView, name: RealmGroupSettingName): GroupSetting {
  return state.realm.permissions[name] ?? state.systemGroup(realmGroupSettings[name].default);
}

export const realmProperty = <K extends RealmPropertyName>(state: RealmView, name: K): RealmProperties[K] =>
  (state.realm.properties?.[name] ?? realmPropertyDefaults[name]) as RealmProperties[K];

/** Zulip's policy enum for the system group a legacy `*_policy` setting now reads from. */
const policyOfSystemGroup: Partial<Record<string, number>> = {
  'role:members': 1,
  'role:administrators': 2,
  'role:fullmembers': 3,
  'role:moderators': 4,
  'role:everyone': 5,
  'role:nobody': 6,
  'role:owners': 7,
};
const wildcardPolicyOfSystemGroup: Partial<Record<string, number>> = {
  'role:everyone': 1,
  'role:members': 2,
  'role:fullmembers': 3,
  'role:administrators': 5,
  'role:nobody': 6,
  'role:moderators': 7,
};

/** A deprecated policy value derived from a group setting: the closest system group's value (a
 * superset of the users, as Zulip reports it; anonymous groups read as "members"). */
export function legacyPolicy(state: RealmView, name: RealmGroupSettingName, wildcard = false): number {
  const value = realmGroupSetting(state, name);
  const systemName = typeof value === 'number' ? state.systemGroupNames.get(value) : undefined;
  const table = wildcard ? wildcardPolicyOfSystemGroup : policyOfSystemGroup;
  return table[systemName ?? 'role:members'] ?? table['role:members']!;
}

/** The deprecated `*_policy` settings register still reports, by the group setting each is read
 * from (and whether it uses the wildcard-mention scale). */
export const legacyPolicies = {
  create_public_stream_policy: ['can_create_public_channel_group', false],
  create_private_stream_policy: ['can_create_private_channel_group', false],
  create_web_public_stream_policy: ['can_create_web_public_channel_group', false],
  wildcard_mention_policy: ['can_mention_many_users_group', true],
} as const satisfies Record<string, readonly [RealmGroupSettingName, boolean]>;

/** Each deprecated policy's current value, by its name. */
export const legacyPolicyValues = (state: RealmView): Record<keyof typeof legacyPolicies, number> =>
  Object.fromEntries(Object.entries(legacyPolicies).map(([name, [setting, wildcard]]) => [name, legacyPolicy(state, setting, wildcard)])) as Record<keyof typeof legacyPolicies, number>;

interface PermissionMetadata {
  require_system_group: boolean;
  allow_internet_group: boolean;
  allow_nobody_group: boolean;
  allow_everyone_group: boolean;
  default_group_name: string;
  default_for_system_groups: string | null;
  allowed_system_groups: string[];
}

const metadata = (rule: GroupSettingRule, defaultName: string = rule.default): PermissionMetadata => ({
  require_system_group: rule.requireSystemGroup ?? false,
  allow_internet_group: false,
  allow_nobody_group: rule.allowNobody ?? true,
  allow_everyone_group: rule.allowEveryone ?? false,
  default_group_name: defaultName,
  default_for_system_groups: null,
  allowed_system_groups: rule.allowedSystemGroups ?? [],
});

/** Register's server_supported_permission_settings, from the tables the server checks with. */
export function supportedPermissionSettings() {
  return {
    realm: Object.fromEntries(realmGroupSettingNames.map((name) => [name, metadata(realmGroupSettings[name])])),
    stream: Object.fromEntries(
      channelPermissions.map((name) => [name, metadata({ default: 'role:nobody', allowEveryone: true }, channelPermissionDefaults[name])]),
    ),
    group: Object.fromEntries(
      groupPermissions.map((name) => [name, metadata({ default: 'role:nobody', allowEveryone: true }, name === 'can_mention_group' ? 'role:everyone' : 'group_creator')]),
    ),
  };
}
