// The user's own settings (PATCH /settings): every personal setting and the name, with the events
// that keep the user's clients (and, for the time zone, name and e-mail visibility, everyone's) current;
// alert words; and the settings' register state.
import { presenceEnabledChanged } from './presence.js';
import { errors } from '../../errors.js';
import { MAX_ALERT_WORD_LENGTH, MAX_ALERT_WORDS } from '../../messages/alertWords.js';
import { checkFullName } from '../../users/names.js';
import type { UserRecord } from '../../users/records.js';
import {
  checkUserSetting,
  languages,
  legacyGroupOf,
  legacySettingNames,
  realmDefaultSetting,
  settingChoices,
  settingsObject,
  userSetting,
  userSettingNames,
  withUserSetting,
  type SettingValue,
  type StoredSettings,
  type UserSettingName,
} from '../../users/settings.js';
import { apiEmail, canSeeDeliveryEmail } from '../../users/view.js';
import { isUnsubscribeToken } from '../../users/unsubscribe.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { activeAdminIds, requireAdmin } from './admin.js';
import { accessorsOf } from './userAccess.js';

/** Whether the time zone database knows the name: canonical zones and their aliases ("UTC",
 * "US/Eastern"), as Zulip accepts pytz's common zones. */
function knownTimezone(name: string): boolean {
  try {
    const resolved = new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
    // The database ignores case ("utc"); names are written as the database writes them.
    return resolved === name || resolved.toLowerCase() !== name.toLowerCase();
  } catch {
    return false;
  }
}

export interface SettingsInput {
  fullName?: string;
  /** Personal settings to change (validated for type by the route's schema). */
  settings: StoredSettings;
}

/** A change of who may see the real address: the API e-mail may change for everyone, and
 * delivery_email for those who gain or lose access (Zulip's events). */
function announceVisibility(ctx: CommandContext, before: UserRecord, after: UserRecord): void {
  const everyone = accessorsOf(ctx, after).map((id) => ctx.state.users.get(id)!);
  const email = apiEmail(after, ctx.fakeEmailDomain);
  if (email !== apiEmail(before, ctx.fakeEmailDomain)) {
    ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: after.id, new_email: email } }, everyone.map((user) => user.id));
  }
  const gained = everyone.filter((viewer) => !canSeeDeliveryEmail(before, viewer) && canSeeDeliveryEmail(after, viewer)).map((viewer) => viewer.id);
  const lost = everyone.filter((viewer) => canSeeDeliveryEmail(before, viewer) && !canSeeDeliveryEmail(after, viewer)).map((viewer) => viewer.id);
  if (gained.length > 0) ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: after.id, delivery_email: after.email } }, gained);
  if (lost.length > 0) ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: after.id, delivery_email: null } }, lost);
}


export const settingsCommands = {
  /** Alert words: added or removed, the result announced to the user's own clients. */
  'alertWords.update': writeCommand((ctx, input: { add: string[]; remove: string[] }) => {
    const user = ctx.user;
    const add = input.add.map((word) => word.trim()).filter((word) => word !== '');
    add.forEach((word, index) => {
      if ([...word].length > MAX_ALERT_WORD_LENGTH) throw errors.badRequest(`alert_words[${index}] is too long (limit: ${MAX_ALERT_WORD_LENGTH} characters)`);
    });
    const removing = new Set(input.remove.map((word) => word.toLowerCase()));
    const alertWords = (user.alertWords ?? []).filter((word) => !removing.has(word.toLowerCase()));
    const known = new Set(alertWords.map((word) => word.toLowerCase()));
    for (const word of add) {
      if (known.has(word.toLowerCase())) continue;
      known.add(word.toLowerCase());
      alertWords.push(word);
    }
    if (alertWords.length > MAX_ALERT_WORDS) throw errors.badRequest(`Too many alert words (limit: ${MAX_ALERT_WORDS})`);
    ctx.save('user', { ...user, alertWords });
    ctx.emit({ type: 'alert_words', alert_words: alertWords }, [user.id]);
    return { alert_words: alertWords };
  }),

  'alertWords.list': readCommand((ctx) => ({ alert_words: ctx.user.alertWords ?? [] })),

  'settings.update': writeCommand((ctx, input: SettingsInput) => {
    const before = ctx.user;
    const fullName = input.fullName === undefined ? undefined : checkFullName(input.fullName);
    const changes = checkedChanges(input.settings);
    let after: UserRecord = fullName === undefined ? before : { ...before, fullName };
    for (const [name, value] of changes) after = withUserSetting(after, name, value);
    ctx.save('user', after);
    for (const name of userSettingNames) {
      if (userSetting(after, name) !== userSetting(before, name)) announceSetting(ctx, before, after, name);
    }
    if (after.fullName !== before.fullName) {
      ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: after.id, full_name: after.fullName } }, accessorsOf(ctx, after));
    }
    return {};
  }),

  /** The one-click unsubscribe link of missed-message e-mails: no credentials, the link's token. */
  'settings.unsubscribe': writeCommand((ctx, input: { userId: number; token: string }) => {
    const before = ctx.state.users.get(input.userId);
    if (!before?.isActive || !isUnsubscribeToken(before, input.token)) throw errors.badRequest('Invalid unsubscribe link');
    const name = 'enable_offline_email_notifications';
    if (userSetting(before, name) !== false) {
      const after = withUserSetting(before, name, false);
      ctx.save('user', after);
      announceSetting(ctx, before, after, name);
    }
    return { realmName: ctx.state.realm.name };
  }),

  /** The organization's defaults for new users' settings (PATCH /realm/user_settings_defaults):
   * administrators only; existing users keep theirs. */
  'settings.updateDefaults': writeCommand((ctx, input: { settings: StoredSettings }) => {
    requireAdmin(ctx);
    const changes = checkedChanges(input.settings);
    const before = ctx.state.realm.userSettingDefaults;
    const defaults = { ...before, ...Object.fromEntries(changes) };
    ctx.saveRealm({ userSettingDefaults: defaults });
    for (const [name] of changes) {
      const value = realmDefaultSetting(defaults, name);
      if (value !== realmDefaultSetting(before, name)) ctx.emit({ type: 'realm_user_settings_defaults', op: 'update', property: name, value }, ctx.activeUserIds());
    }
    return {};
  }),
};

/** The settings a request changes, each checked beyond its type; throws at the first refusal. */
function checkedChanges(settings: StoredSettings): [UserSettingName, SettingValue][] {
  const changes = Object.entries(settings).filter(([, value]) => value !== undefined) as [UserSettingName, SettingValue][];
  for (const [name, value] of changes) {
    const refusal = name === 'timezone' ? checkTimezone(String(value)) : checkUserSetting(name, value);
    if (refusal !== undefined) throw errors.badRequest(refusal);
  }
  return changes;
}

/** Announces one changed setting: to the user's clients (and in the legacy shape to those that
 * registered without `user_settings_object`), and to everyone when others see its effect. */
function announceSetting(ctx: CommandContext, before: UserRecord, after: UserRecord, name: UserSettingName): void {
  const value = userSetting(after, name);
  const language = name === 'default_language' ? { language_name: languages[String(value)] ?? String(value) } : {};
  ctx.emit({ type: 'user_settings', op: 'update', property: name, value, ...language }, [after.id]);
  const legacy = name === 'timezone' ? 'display' : legacyGroupOf(name);
  const email = apiEmail(after, ctx.fakeEmailDomain);
  if (legacy === 'display') ctx.emit({ type: 'update_display_settings', user: email, setting_name: name, setting: value, ...language }, [after.id]);
  if (legacy === 'notification') ctx.emit({ type: 'update_global_notifications', user: email, notification_name: name, setting: value }, [after.id]);
  if (name === 'email_address_visibility') announceVisibility(ctx, before, after);
  if (name === 'allow_private_data_export') {
    ctx.emit({ type: 'realm_export_consent', user_id: after.id, consented: value === true }, activeAdminIds(ctx));
  }
  if (name === 'timezone') {
    ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: after.id, email, timezone: after.timezone } }, accessorsOf(ctx, after));
  }
  // presence_enabled is the status's `away` seen from the other side (Zulip announces both).
  if (name === 'presence_enabled') {
    ctx.emit({ type: 'user_status', user_id: after.id, away: value === false }, accessorsOf(ctx, after));
    presenceEnabledChanged(ctx, after, value === true);
  }
}

function checkTimezone(timezone: string): string | undefined {
  return timezone === '' || knownTimezone(timezone) ? undefined : `${timezone} is not a recognized time zone`;
}

export const settingsInitialState = (ctx: ReadContext) => ({ user_settings: settingsObject((name) => userSetting(ctx.user, name)) });

/** Settings in the top-level keys of register, for clients without `user_settings_object`. */
export const legacySettingsInitialState = (group: 'display' | 'notification') => (ctx: ReadContext) => {
  const user = ctx.user;
  const values = Object.fromEntries(legacySettingNames(group).map((name) => [name, userSetting(user, name)]));
  const { available_notification_sounds, emojiset_choices } = settingChoices();
  return group === 'display'
    ? { ...values, emojiset_choices, receives_typing_notifications: userSetting(user, 'receives_typing_notifications') }
    : { ...values, available_notification_sounds };
};

export const settingDefaultsInitialState = (ctx: ReadContext) => ({
  realm_user_settings_defaults: settingsObject(
    (name) => realmDefaultSetting(ctx.state.realm.userSettingDefaults, name),
    userSettingNames.filter((name) => name !== 'timezone'),
  ),
});

export const alertWordsInitialState = (ctx: ReadContext) => ({ alert_words: ctx.user.alertWords ?? [] });
