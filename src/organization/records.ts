// The stored realm (organization) record and the host names derived from it.
import type { GroupSetting } from '../groups/records.js';
import type { StoredSettings } from '../users/settings.js';
import type { RealmGroupSettingName, RealmProperties } from './settingDefaults.js';

/** Organization-level permissions that are group settings: the four every realm stores from its
 * creation, and any other that was changed (absent: Zulip's default, see realmGroupSetting). */
export type RealmPermissions = Record<'can_add_subscribers_group' | 'can_create_public_channel_group' | 'can_create_private_channel_group' | 'can_create_web_public_channel_group', GroupSetting> &
  Partial<Record<RealmGroupSettingName, GroupSetting>>;

/** Zulip's message-editing settings (limits in seconds; null: no limit). */
export interface MessageEditSettings {
  allowMessageEditing: boolean;
  contentEditLimitSeconds: number | null;
  /** Moving to another topic, for users below moderator. */
  moveWithinChannelLimitSeconds: number | null;
  /** Moving to another channel, for users below moderator. */
  moveBetweenChannelsLimitSeconds: number | null;
}

/** Zulip's defaults: editing on, content for 10 minutes, moves for 3 days. */
export const defaultEditSettings: MessageEditSettings = {
  allowMessageEditing: true,
  contentEditLimitSeconds: 600,
  moveWithinChannelLimitSeconds: 3 * 24 * 3600,
  moveBetweenChannelsLimitSeconds: 3 * 24 * 3600,
};

export interface RealmRecord {
  id: number;
  /** Subdomain under the external host; '' is the organization at the root domain. */
  subdomain: string;
  name: string;
  description: string;
  dateCreated: number;
  deactivated: boolean;
  /** Zulip's enable_spectator_access. */
  enableSpectatorAccess: boolean;
  /** Zulip's realm_topics_policy: whether channels that inherit allow the empty topic. */
  topicsPolicy: 'allow_empty_topic' | 'disable_empty_topic';
  permissions: RealmPermissions;
  /** Channels new users are subscribed to. */
  defaultChannelIds: number[];
  /** Where the notification bot announces new channels (Zulip's new_stream_announcements_stream). */
  newChannelAnnouncementsChannelId: number | null;
  /** The realm's notification bot, created with the realm. */
  notificationBotId: number | null;
  /** Welcome Bot, who greets new users (absent in realms from before it: made when first needed). */
  welcomeBotId?: number;
  /** Whether members may see messages' edit history (Zulip's realm_allow_edit_history). */
  editHistoryVisible: boolean;
  /** Absent in realms created before it existed: Zulip's defaults. */
  messageEditing?: MessageEditSettings;
  /** Organization settings that differ from Zulip's defaults (realmPropertyDefaults). */
  properties?: Partial<RealmProperties>;
  /** New users' personal settings where the organization differs from Zulip's defaults. */
  userSettingDefaults?: StoredSettings;
}

export function realmHost(realm: Pick<RealmRecord, 'subdomain'>, externalHost: string): string {
  return realm.subdomain === '' ? externalHost : `${realm.subdomain}.${externalHost}`;
}

/** The realm's URL: https in production, http on a development server. */
export function realmUrl(realm: Pick<RealmRecord, 'subdomain'>, config: { externalHost: string; mode: string }): string {
  return `${config.mode === 'production' ? 'https' : 'http'}://${realmHost(realm, config.externalHost)}`;
}

/** The domain of the dummy `user{id}@{domain}` addresses: the realm's host without its port. */
export function fakeEmailDomain(realm: Pick<RealmRecord, 'subdomain'>, externalHost: string): string {
  return realmHost(realm, externalHost).replace(/:\d+$/, '');
}

/** The server's own bots in a realm (notification bot, Welcome Bot): nobody's to manage. */
export const isSystemBot = (realm: Pick<RealmRecord, 'notificationBotId' | 'welcomeBotId'>, userId: number): boolean => userId === realm.notificationBotId || userId === realm.welcomeBotId;
