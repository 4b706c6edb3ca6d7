// Register's `realm` state: every organization setting with its real value (stored, else Zulip's
// default for a self-hosted server) and what the server itself offers or limits, as Zulip reports it.
import { createHash } from 'node:crypto';
import { editSettings } from '../../messages/editRights.js';
import { defaultExternalAccounts } from '../../users/profileFields.js';
import { realmUrl } from '../../organization/records.js';
import { legacyPolicyValues, realmGroupSetting, realmGroupSettingNames, realmProperty, realmPropertyDefaults, supportedPermissionSettings, type RealmPropertyName } from '../../organization/settings.js';
import type { Config } from '../../config.js';
import type { ReadContext } from '../context.js';
import { serverConstants } from './limits.js';
import { passwordPolicy } from '../../users/password.js';

/** Zulip's GIPHY rating choices (no GIPHY key is configured, so the integration is off). */
export const giphyRatingOptions = {
  disabled: { name: 'GIPHY integration disabled', id: 0 },
  y: { name: 'Allow GIFs rated Y (Very young audience)', id: 1 },
  g: { name: 'Allow GIFs rated G (General audience)', id: 2 },
  pg: { name: 'Allow GIFs rated PG (Parental guidance)', id: 3 },
  'pg-13': { name: 'Allow GIFs rated PG-13 (Parental guidance - under 13)', id: 4 },
  r: { name: 'Allow GIFs rated R (Restricted)', id: 5 },
};

const DEFAULT_JITSI_SERVER = 'https://meet.jit.si';

/** Where the server serves the emoji name table and the default organization logo (api/static.ts). */
export const emojiDataPath = '/static/emoji/emoji_api.json';
export const defaultLogoPath = '/static/images/logo/parley-org-logo.svg';

/** The video call providers this server offers (Zulip's IDs). */
export function videoChatProviders(config: Config) {
  const provider = config.videoProvider;
  return {
    disabled: { name: 'None', id: 0 },
    ...(provider?.kind === 'jitsi' ? { jitsi_meet: { name: 'Jitsi Meet', id: 1 } } : {}),
    ...(provider?.kind === 'oauth' ? { zoom: { name: 'Zoom', id: 3 } } : {}),
  };
}

function realmProperties(ctx: ReadContext) {
  return Object.fromEntries(Object.keys(realmPropertyDefaults).map((name) => [`realm_${name}`, realmProperty(ctx.state, name as RealmPropertyName)]));
}

function groupSettings(ctx: ReadContext) {
  return Object.fromEntries(realmGroupSettingNames.map((name) => [`realm_${name}`, realmGroupSetting(ctx.state, name)]));
}

export function realmInitialState(ctx: ReadContext) {
  const url = realmUrl(ctx.state.realm, ctx.config);
  return {
    ...serverConstants,
    password_min_length: passwordPolicy(ctx.config.mode).minLength,
    ...realmProperties(ctx),
    ...groupSettings(ctx),
    ...recordState(ctx, url),
    ...Object.fromEntries(Object.entries(legacyPolicyValues(ctx.state)).map(([name, value]) => [`realm_${name}`, value])),
    ...authenticationState(ctx),
    ...imagesState(ctx, url),
    ...serverState(ctx, url),
  };
}

/** What the realm's record holds: names, addresses, topics, announcements, editing. */
function recordState(ctx: ReadContext, url: string) {
  const { realm } = ctx.state;
  const editing = editSettings(ctx.state);
  return {
    realm_name: realm.name,
    realm_description: realm.description,
    realm_uri: url,
    realm_url: url,
    realm_date_created: realm.dateCreated,
    realm_enable_spectator_access: realm.enableSpectatorAccess,
    realm_topics_policy: realm.topicsPolicy,
    realm_mandatory_topics: realm.topicsPolicy === 'disable_empty_topic',
    realm_new_stream_announcements_stream_id: realm.newChannelAnnouncementsChannelId ?? -1,
    realm_allow_edit_history: realm.editHistoryVisible !== false,
    realm_message_edit_history_visibility_policy: realm.editHistoryVisible === false ? 'none' : 'all',
    realm_allow_message_editing: editing.allowMessageEditing,
    realm_message_content_edit_limit_seconds: editing.contentEditLimitSeconds,
    realm_move_messages_within_stream_limit_seconds: editing.moveWithinChannelLimitSeconds,
    realm_move_messages_between_streams_limit_seconds: editing.moveBetweenChannelsLimitSeconds,
  };
}

/** How people may log in: e-mail and password always, development login and JWT where set up. */
function authenticationState(ctx: ReadContext) {
  const development = ctx.config.mode === 'development';
  return {
    realm_authentication_methods: {
      Email: { enabled: true, available: true },
      Dev: development ? { enabled: true, available: true } : { enabled: false, available: false, unavailable_reason: 'Only available on development servers.' },
      JWT: ctx.config.jwtKeys[ctx.state.realm.subdomain] ? { enabled: true, available: true } : { enabled: false, available: false, unavailable_reason: 'Not configured on this server.' },
    },
    realm_email_auth_enabled: true,
    realm_password_auth_enabled: true,
  };
}

/** The organization's icon (an identicon) and logos (the default). */
function imagesState(ctx: ReadContext, url: string) {
  const { realm } = ctx.state;
  const iconHash = createHash('md5').update(`${realm.id}:${realm.subdomain}`).digest('hex');
  return {
    realm_icon_url: `https://secure.gravatar.com/avatar/${iconHash}?d=identicon`,
    realm_icon_source: 'G',
    realm_logo_url: `${url}${defaultLogoPath}`,
    realm_logo_source: 'D',
    realm_night_logo_url: `${url}${defaultLogoPath}`,
    realm_night_logo_source: 'D',
  };
}

/** What the server offers the realm: calls, push, uploads, its plan, its development features. */
function serverState(ctx: ReadContext, url: string) {
  const { config } = ctx;
  const provider = config.videoProvider;
  const jitsi = provider?.kind === 'jitsi' ? provider.serverUrl : null;
  return {
    realm_bot_domain: ctx.fakeEmailDomain,
    realm_available_video_chat_providers: videoChatProviders(config),
    jitsi_server_url: jitsi ?? DEFAULT_JITSI_SERVER,
    server_jitsi_server_url: jitsi,
    realm_is_zephyr_mirror_realm: false,
    realm_push_notifications_enabled: config.pushRelay !== null,
    realm_push_notifications_enabled_end_timestamp: null,
    realm_upload_quota_mib: config.uploadQuotaMib,
    max_file_upload_size_mib: config.maxFileUploadSizeMib,
    realm_plan_type: 1,
    zulip_plan_is_not_limited: true,
    upgrade_text_for_wide_organization_logo: '',
    realm_default_external_accounts: defaultExternalAccounts,
    giphy_rating_options: giphyRatingOptions,
    development_environment: config.mode === 'development',
    server_web_public_streams_enabled: config.webPublicStreamsEnabled,
    server_emoji_data_url: `${url}${emojiDataPath}`,
    server_supported_permission_settings: supportedPermissionSettings(),
  };
}
