// The User object of the API, as one requester may see it (spec: "User object").
import { userAvatarUrl } from './avatars.js';
import { profileValue, type FieldRecord } from './profileFields.js';
import { EmailVisibility, Role, type UserRecord } from './records.js';

export interface UserView {
  user_id: number;
  delivery_email: string | null;
  email: string;
  full_name: string;
  date_joined: string;
  is_active: boolean;
  is_owner: boolean;
  is_admin: boolean;
  is_guest: boolean;
  is_bot: boolean;
  /** Only on bots, as Zulip's format_user_row. */
  bot_type?: number | null;
  bot_owner_id?: number | null;
  role: number;
  timezone: string;
  avatar_url: string | null;
  avatar_version: number;
  /** Absent on the placeholder of a user a guest may not see, as in Zulip. */
  is_imported_stub?: boolean;
  is_deleted?: true;
  profile_data?: Record<string, { value: string; rendered_value?: string }>;
}

export interface ViewOptions {
  /** The domain of dummy addresses, see fakeEmailDomain. */
  fakeEmailDomain: string;
  clientGravatar: boolean;
  /** When given, non-bot users carry profile_data for these fields. */
  profileFields?: ReadonlyMap<number, FieldRecord>;
}

/** Whether `viewer` may see `target`'s real e-mail under the target's visibility setting. */
export function canSeeDeliveryEmail(target: UserRecord, viewer: Pick<UserRecord, 'id' | 'role'>): boolean {
  if (viewer.id === target.id || target.isBot) return true;
  switch (target.emailAddressVisibility) {
    case EmailVisibility.everyone:
      return true;
    case EmailVisibility.members:
      return viewer.role <= Role.member;
    case EmailVisibility.moderators:
      return viewer.role <= Role.moderator;
    case EmailVisibility.administrators:
      return viewer.role <= Role.administrator;
    case EmailVisibility.nobody:
      return false;
  }
}

export const dummyEmail = (userId: number, domain: string): string => `user${userId}@${domain}`;

/** The API e-mail: the real address when everyone may see it, else the dummy one. The same for
 * every requester (as in Zulip), so payloads that carry it can be shared between recipients. */
export const apiEmail = (user: UserRecord, domain: string): string =>
  user.emailAddressVisibility === EmailVisibility.everyone || user.isBot ? user.email : dummyEmail(user.id, domain);

/** The avatar URL a view shows: none when the client computes the gravatar itself from an e-mail
 * it may see (Zulip's client_gravatar). */
export const avatarUrlFor = (target: UserRecord, emailVisible: boolean, clientGravatar: boolean): string | null =>
  clientGravatar && emailVisible && target.avatarSource === 'G' ? null : userAvatarUrl(target);

const isoTime = (seconds: number): string => new Date(seconds * 1000).toISOString().replace('Z', '+00:00');

export function userView(target: UserRecord, viewer: Pick<UserRecord, 'id' | 'role'>, options: ViewOptions): UserView {
  const visible = canSeeDeliveryEmail(target, viewer);
  const view: UserView = {
    user_id: target.id,
    delivery_email: visible ? target.email : null,
    email: apiEmail(target, options.fakeEmailDomain),
    full_name: target.fullName,
    date_joined: isoTime(target.firstLogin ?? target.dateCreated),
    is_active: target.isActive,
    is_owner: target.role === Role.owner,
    is_admin: target.role <= Role.administrator,
    is_guest: target.role === Role.guest,
    is_bot: target.isBot,
    ...(target.isBot ? { bot_type: target.botType, bot_owner_id: target.botOwnerId } : {}),
    role: target.role,
    timezone: target.timezone,
    avatar_url: avatarUrlFor(target, visible, options.clientGravatar),
    avatar_version: target.avatarVersion,
    is_imported_stub: target.isImportedStub,
  };
  if (target.isDeleted) view.is_deleted = true;
  if (options.profileFields && !target.isBot) {
    const data: NonNullable<UserView['profile_data']> = {};
    for (const [id, value] of Object.entries(target.profileData ?? {})) {
      const field = options.profileFields.get(Number(id));
      if (field) data[id] = profileValue(field, value);
    }
    view.profile_data = data;
  }
  return view;
}

/** The name of a user a guest may not see (Zulip's INACCESSIBLE_USER_NAME). */
export const INACCESSIBLE_USER_NAME = 'Unknown user';

/** A generic silhouette: nothing about the user, not even a hash of their address. */
export const UNKNOWN_USER_AVATAR = 'https://secure.gravatar.com/avatar/?d=mp&f=y';

/** How a user a viewer may not see appears wherever they are named (user lists, messages' senders,
 * notifications): an "Unknown user", whose only variable content is the user ID. */
export const unknownUserFace = (userId: number, fakeEmailDomain: string): { email: string; fullName: string; avatarUrl: string } => ({
  email: dummyEmail(userId, fakeEmailDomain),
  fullName: INACCESSIBLE_USER_NAME,
  avatarUrl: UNKNOWN_USER_AVATAR,
});

/** A user a guest may not see, as Zulip's get_data_for_inaccessible_user. */
export const inaccessibleUserView = (userId: number, fakeEmailDomain: string): UserView => ({
  email: dummyEmail(userId, fakeEmailDomain),
  user_id: userId,
  avatar_version: 1,
  is_admin: false,
  is_owner: false,
  is_guest: false,
  role: Role.member,
  is_bot: false,
  full_name: INACCESSIBLE_USER_NAME,
  timezone: '',
  is_active: true,
  date_joined: isoTime(0),
  delivery_email: null,
  avatar_url: UNKNOWN_USER_AVATAR,
  profile_data: {},
});

/** A bot as its owner and administrators see it (register's realm_bots, realm_bot events). */
/** A bot's services as Zulip reports them: an outgoing webhook's URL, interface and token; an
 * embedded bot's configuration. */
export function botServices(bot: UserRecord): ({ base_url: string; interface: number; token: string } | { service_name: string; config_data: Record<string, string> })[] {
  if (bot.service) return [{ base_url: bot.service.baseUrl, interface: bot.service.interface, token: bot.service.token }];
  if (bot.botConfig) return [{ service_name: bot.email.split('-bot@')[0]!, config_data: bot.botConfig }];
  return [];
}

export function botView(bot: UserRecord, fakeEmailDomain: string) {
  return {
    user_id: bot.id,
    full_name: bot.fullName,
    api_key: bot.apiKey,
    email: apiEmail(bot, fakeEmailDomain),
    bot_type: bot.botType,
    is_active: bot.isActive,
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    avatar_url: userAvatarUrl(bot),
    owner_id: bot.botOwnerId,
    services: botServices(bot),
  };
}
