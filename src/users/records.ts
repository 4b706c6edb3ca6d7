// The stored user record, Zulip's role values and the e-mail visibility policy values.
import type { Emoji } from './emoji.js';
import type { StoredSettings } from './settingDefinitions.js';

export const Role = { owner: 100, administrator: 200, moderator: 300, member: 400, guest: 600 } as const;
export type Role = (typeof Role)[keyof typeof Role];
export const roles: readonly Role[] = Object.values(Role);

/** Zulip's email_address_visibility values. */
export const EmailVisibility = { everyone: 1, members: 2, administrators: 3, nobody: 4, moderators: 5 } as const;
export type EmailVisibility = (typeof EmailVisibility)[keyof typeof EmailVisibility];

/** A user's status (spec endpoint 7). Absent on a user means no status. */
export interface UserStatus {
  text: string;
  emoji: Emoji | null;
  /** Deprecated `away`: the inverse of presence_enabled. */
  away: boolean;
}

/** A muted user and when they were muted (UNIX seconds). */
export interface MutedUser {
  id: number;
  timestamp: number;
}

/** Zulip's bot types. */
export const BotType = { generic: 1, incomingWebhook: 2, outgoingWebhook: 3, embedded: 4 } as const;

/** An outgoing-webhook bot's service (Zulip's Service): where messages that mention it are posted,
 * in which interface (1 Zulip's, 2 Slack-compatible), and the token its receiver checks. */
export interface BotService {
  baseUrl: string;
  interface: number;
  token: string;
}

/** Zulip's outgoing-webhook interfaces. */
export const ServiceInterface = { zulip: 1, slack: 2 } as const;

export interface UserRecord {
  id: number;
  realmId: number;
  /** The real (delivery) e-mail address. */
  email: string;
  fullName: string;
  role: Role;
  isActive: boolean;
  isBot: boolean;
  botType: number | null;
  botOwnerId: number | null;
  apiKey: string;
  /** scrypt hash (users/password.ts); null when the user cannot log in with a password. */
  passwordHash: string | null;
  /** Creation time, UNIX seconds. */
  dateCreated: number;
  /** First login (API-key fetch), UNIX seconds; date_joined reports it once set. */
  firstLogin: number | null;
  timezone: string;
  avatarSource: 'G' | 'U';
  /** The uploaded avatar's storage key (users/avatars.ts), while avatarSource is 'U'. */
  avatarKey?: string;
  avatarVersion: number;
  isImportedStub: boolean;
  isDeleted: boolean;
  emailAddressVisibility: EmailVisibility;
  status?: UserStatus;
  /** Custom profile field values by field ID (absent: none set). */
  profileData?: Record<string, string>;
  /** Words that flag a message has_alert_word for this user. */
  alertWords?: string[];
  /** The users this user muted, oldest first: their messages arrive read (Zulip's MutedUser). */
  mutedUsers?: MutedUser[];
  /** The video call provider's OAuth access token, once the user completed its flow. */
  videoCallToken?: string;
  /** A bot's: when its owner was last told of a message it could not deliver (a webhook to a
   * channel that does not exist), UNIX seconds; such notices come at most once a minute. */
  ownerNoticeAt?: number;
  /** An outgoing-webhook bot's service. */
  service?: BotService;
  /** A bot's configuration (config_data: Zulip's embedded bots' settings). */
  botConfig?: Record<string, string>;
  /** Personal settings that differ from Zulip's defaults (users/settings.ts; timezone, e-mail
   * visibility and presence_enabled are the fields above). */
  settings?: StoredSettings;
}

/** Whether the user muted the sender: the sender's messages then arrive read for them. */
export const hasMuted = (user: Pick<UserRecord, 'mutedUsers'> | undefined, senderId: number): boolean => user?.mutedUsers?.some((muted) => muted.id === senderId) === true;

export const isAdmin = (user: Pick<UserRecord, 'role'>): boolean => user.role <= Role.administrator;
