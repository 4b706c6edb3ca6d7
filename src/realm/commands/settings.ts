// The user's own settings (PATCH /settings): e-mail visibility, time zone, name and
// translate_emoticons, with the events that keep every client's view of the user current.
import { errors } from '../../errors.js';
import type { ZulipEvent } from '../../events/types.js';
import { checkFullName } from '../../users/names.js';
import { translateEmoticons } from '../../users/preferences.js';
import { EmailVisibility, type UserRecord } from '../../users/records.js';
import { apiEmail, canSeeDeliveryEmail } from '../../users/view.js';
import { readCommand, writeCommand, type CommandContext } from '../context.js';

const visibilities = new Set<number>(Object.values(EmailVisibility));
const timezones = new Set(Intl.supportedValuesOf('timeZone'));

export interface SettingsInput {
  emailAddressVisibility?: number;
  timezone?: string;
  fullName?: string;
  translateEmoticons?: boolean;
}

const activeUsers = (ctx: CommandContext): UserRecord[] => [...ctx.state.users.values()].filter((user) => user.isActive);

/** A change of who may see the real address: the API e-mail may change for everyone, and
 * delivery_email for those who gain or lose access (Zulip's events). */
function announceVisibility(ctx: CommandContext, before: UserRecord, after: UserRecord): void {
  const everyone = activeUsers(ctx);
  const email = apiEmail(after, ctx.fakeEmailDomain);
  if (email !== apiEmail(before, ctx.fakeEmailDomain)) {
    ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: after.id, new_email: email } }, everyone.map((user) => user.id));
  }
  const gained = everyone.filter((viewer) => !canSeeDeliveryEmail(before, viewer) && canSeeDeliveryEmail(after, viewer)).map((viewer) => viewer.id);
  const lost = everyone.filter((viewer) => canSeeDeliveryEmail(before, viewer) && !canSeeDeliveryEmail(after, viewer)).map((viewer) => viewer.id);
  if (gained.length > 0) ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: after.id, delivery_email: after.email } }, gained);
  if (lost.length > 0) ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: after.id, delivery_email: null } }, lost);
}

export const MAX_ALERT_WORD_LENGTH = 100;

export const settingsCommands = {
  /** Alert words: added or removed, the result announced to the user's own clients. */
  'alertWords.update': writeCommand((ctx, input: { add: string[]; remove: string[] }) => {
    const user = ctx.actor;
    const add = input.add.map((word) => word.trim()).filter((word) => word !== '');
    for (const word of add) if ([...word].length > MAX_ALERT_WORD_LENGTH) throw errors.badRequest(`alert_words[${add.indexOf(word)}] is too long (limit: ${MAX_ALERT_WORD_LENGTH} characters)`);
    const removing = new Set(input.remove.map((word) => word.toLowerCase()));
    const kept = (user.alertWords ?? []).filter((word) => !removing.has(word.toLowerCase()));
    const alertWords = [...kept];
    for (const word of add) if (!alertWords.some((known) => known.toLowerCase() === word.toLowerCase())) alertWords.push(word);
    ctx.saveUser({ ...user, alertWords });
    ctx.emit({ type: 'alert_words', alert_words: alertWords }, [user.id]);
    return { alert_words: alertWords };
  }),

  'alertWords.list': readCommand((ctx) => ({ alert_words: ctx.actor.alertWords ?? [] })),

  'settings.update': writeCommand((ctx, input: SettingsInput) => {
    const before = ctx.actor;
    if (input.emailAddressVisibility !== undefined && !visibilities.has(input.emailAddressVisibility)) throw errors.invalidArgument('email_address_visibility');
    if (input.timezone !== undefined && input.timezone !== '' && !timezones.has(input.timezone)) throw errors.badRequest(`${input.timezone} is not a recognized time zone`);
    const fullName = input.fullName === undefined ? undefined : checkFullName(input.fullName);
    const after: UserRecord = {
      ...before,
      emailAddressVisibility: (input.emailAddressVisibility as EmailVisibility | undefined) ?? before.emailAddressVisibility,
      timezone: input.timezone ?? before.timezone,
      fullName: fullName ?? before.fullName,
      translateEmoticons: input.translateEmoticons ?? before.translateEmoticons,
    };
    ctx.saveUser(after);
    const everyone = ctx.activeUserIds();
    const ownSetting = (property: string, value: unknown): ZulipEvent => ({ type: 'user_settings', op: 'update', property, value });
    if (after.emailAddressVisibility !== before.emailAddressVisibility) {
      announceVisibility(ctx, before, after);
      ctx.emit(ownSetting('email_address_visibility', after.emailAddressVisibility), [after.id]);
    }
    if (after.timezone !== before.timezone) {
      ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: after.id, email: apiEmail(after, ctx.fakeEmailDomain), timezone: after.timezone } }, everyone);
      ctx.emit(ownSetting('timezone', after.timezone), [after.id]);
    }
    if (translateEmoticons(after) !== translateEmoticons(before)) ctx.emit(ownSetting('translate_emoticons', translateEmoticons(after)), [after.id]);
    if (after.fullName !== before.fullName) {
      ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: after.id, full_name: after.fullName } }, everyone);
    }
    return {};
  }),
};

export function settingsInitialState(ctx: CommandContext) {
  const user = ctx.actor;
  return {
    user_settings: { email_address_visibility: user.emailAddressVisibility, timezone: user.timezone, presence_enabled: !(user.status?.away ?? false), translate_emoticons: translateEmoticons(user) },
  };
}

export const alertWordsInitialState = (ctx: CommandContext) => ({ alert_words: ctx.actor.alertWords ?? [] });
