// A user's personal settings as the server reads and writes them: the values stored on the user
// record over the defaults of settingDefinitions.ts, and their register views.
import type { EmailVisibility, UserRecord } from './records.js';
import {
  emojisets,
  notificationSounds,
  settingDefs,
  userSettingNames,
  type LegacyGroup,
  type SettingValue,
  type StoredSettings,
  type UserSettingName,
} from './settingDefinitions.js';

export { isUserSettingName, languages, userSettingNames, type SettingValue, type StoredSettings, type UserSettingName } from './settingDefinitions.js';

/** Settings kept in fields of their own on the user record, for the code that reads them often. */
const ownFields: Partial<Record<UserSettingName, { read(user: UserRecord): SettingValue; write(user: UserRecord, value: SettingValue): UserRecord }>> = {
  timezone: { read: (user) => user.timezone, write: (user, value) => ({ ...user, timezone: String(value) }) },
  email_address_visibility: {
    read: (user) => user.emailAddressVisibility,
    write: (user, value) => ({ ...user, emailAddressVisibility: value as EmailVisibility }),
  },
  // Zulip's deprecated status `away` is the inverse of presence_enabled; one stored value serves both.
  presence_enabled: {
    read: (user) => !(user.status?.away ?? false),
    write: (user, value) => ({ ...user, status: { text: '', emoji: null, ...user.status, away: value === false } }),
  },
};

export function userSetting(user: UserRecord, name: UserSettingName): SettingValue {
  const own = ownFields[name];
  if (own) return own.read(user);
  return user.settings?.[name] ?? settingDefs[name].default;
}

/** The user with one setting changed (stored only when it differs from the default). */
export function withUserSetting(user: UserRecord, name: UserSettingName, value: SettingValue): UserRecord {
  const own = ownFields[name];
  if (own) return own.write(user, value);
  const { [name]: _previous, ...others } = user.settings ?? {};
  return { ...user, settings: value === settingDefs[name].default ? others : { ...others, [name]: value } };
}

/** Zulip's refusal of a value of the right type (e.g. an unknown language), or undefined. */
export const checkUserSetting = (name: UserSettingName, value: SettingValue): string | undefined => settingDefs[name].check?.(value);

export const legacyGroupOf = (name: UserSettingName): LegacyGroup | undefined => settingDefs[name].legacy;

/** Register's `user_settings` (and, with `defaults`, `realm_user_settings_defaults`): every setting
 * with the server's choices lists. */
export function settingsObject(read: (name: UserSettingName) => SettingValue, names: readonly UserSettingName[] = userSettingNames) {
  return { ...Object.fromEntries(names.map((name) => [name, read(name)])), ...settingChoices() };
}

/** The choices the server offers for the settings that name one. */
export const settingChoices = () => ({
  available_notification_sounds: [...notificationSounds],
  emojiset_choices: emojisets.map((set) => ({ ...set })),
});

/** A new user with the organization's defaults for new users. */
export function withRealmDefaults(user: UserRecord, defaults: StoredSettings | undefined): UserRecord {
  let result = user;
  for (const [name, value] of Object.entries(defaults ?? {}) as [UserSettingName, SettingValue][]) result = withUserSetting(result, name, value);
  return result;
}

/** The realm's defaults for new users, over Zulip's. */
export const realmDefaultSetting = (defaults: StoredSettings | undefined, name: UserSettingName): SettingValue => defaults?.[name] ?? settingDefs[name].default;

/** The names of the settings a legacy register group carried, in Zulip's order. */
export const legacySettingNames = (group: LegacyGroup): UserSettingName[] => userSettingNames.filter((name) => settingDefs[name].legacy === group);
