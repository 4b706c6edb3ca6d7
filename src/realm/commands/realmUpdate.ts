// PATCH /realm: an administrator changes organization settings (Zulip's update_realm). The whole
// request is checked first, then stored at once and announced as Zulip does: plain settings as
// realm/update, group settings, message editing and the topics policy as realm/update_dict.
import { errors } from '../../errors.js';
import type { GroupSetting } from '../../groups/records.js';
import { editSettings } from '../../messages/editRights.js';
import type { MessageEditSettings, RealmRecord } from '../../organization/records.js';
import { legacyPolicyValues, realmChannelSettingNames, realmGroupSetting, realmGroupSettingNames, realmProperty, realmPropertyDefaults, type RealmGroupSettingName, type RealmPropertyName } from '../../organization/settings.js';
import type { RealmProperties } from '../../organization/settingDefaults.js';
import { languages } from '../../users/settings.js';
import { Role, type UserRecord } from '../../users/records.js';
import { writeCommand, type CommandContext } from '../context.js';
import { changedSetting, type SettingChange } from './groupSettingChange.js';
import { giphyRatingOptions, videoChatProviders } from './realmState.js';

type TimeLimit = number | 'unlimited';

/** A request's changes, under Zulip's names (which are also the names its events carry). */
export type RealmChanges = Partial<Omit<RealmProperties, 'message_content_delete_limit_seconds' | 'message_retention_days'>> &
  Partial<Record<RealmGroupSettingName, SettingChange>> & {
    name?: string;
    description?: string;
    allow_message_editing?: boolean;
    message_content_edit_limit_seconds?: TimeLimit;
    move_messages_within_stream_limit_seconds?: TimeLimit;
    move_messages_between_streams_limit_seconds?: TimeLimit;
    message_content_delete_limit_seconds?: TimeLimit;
    message_retention_days?: TimeLimit;
    allow_edit_history?: boolean;
    enable_spectator_access?: boolean;
    topics_policy?: RealmRecord['topicsPolicy'];
    mandatory_topics?: boolean;
    new_stream_announcements_stream_id?: number;
  };

/** Settings only an owner may change (Zulip's OrganizationOwnerRequiredError). */
const ownerOnly = new Set<string>([
  'invite_required',
  'emails_restricted_to_domains',
  'disallow_disposable_email_addresses',
  'waiting_period_threshold',
  'message_retention_days',
  'create_multiuse_invite_group',
  'can_create_groups',
  'can_invite_users_group',
  'can_manage_all_groups',
]);

const isProperty = (name: string): name is RealmPropertyName => name in realmPropertyDefaults;
const isGroupSetting = (name: string): name is RealmGroupSettingName => (realmGroupSettingNames as readonly string[]).includes(name);

function timeLimit(name: string, value: TimeLimit): number | null {
  if (value === 'unlimited') return null;
  if (value <= 0) throw errors.badRequest(`Invalid ${name}`);
  return value;
}

/** What one organization setting holds, as its `realm` `update` event carries it. */
type RealmUpdateValue = string | number | boolean | null;

interface Plan {
  realm: RealmRecord;
  /** Changes announced as realm/update, in order. */
  updated: [string, RealmUpdateValue][];
  /** Changes announced together as one realm/update_dict. */
  updatedDict: Record<string, unknown>;
}

/** A plan being made: the record's parts as the change makes them. */
interface Draft extends Plan {
  properties: Partial<RealmProperties>;
  permissions: RealmRecord['permissions'];
  editing: MessageEditSettings;
}

/** Checks a change of the organization's settings and plans it; throws the first refusal. */
function checkRealmUpdate(ctx: CommandContext, user: UserRecord, changes: RealmChanges): Plan {
  if (user.role > Role.administrator) throw errors.adminRequired();
  if (user.role > Role.owner && Object.keys(changes).some((name) => ownerOnly.has(name))) throw errors.ownerRequired();
  checkNamedValues(ctx, changes);
  const before = ctx.state.realm;
  const draft: Draft = {
    realm: { ...before },
    properties: { ...before.properties },
    permissions: { ...before.permissions },
    editing: { ...editSettings(ctx.state) },
    updated: [],
    updatedDict: {},
  };
  // In the order the events tell them.
  draftNames(draft, changes);
  draftSettings(ctx, draft, changes);
  draftEditing(draft, changes);
  draftRecordFields(draft, changes);
  const { realm, properties, permissions, editing, updated, updatedDict } = draft;
  Object.assign(realm, { properties, permissions, messageEditing: editing });
  return { realm, updated, updatedDict };
}

/** The values a change names that must exist: a language, a video call provider, a GIPHY rating,
 * channels (the moderation channel a private one). */
function checkNamedValues(ctx: CommandContext, changes: RealmChanges): void {
  const channel = (id: number | undefined, mustBePrivate = false) => {
    if (id === undefined || id === -1) return;
    const found = ctx.state.channels.get(id);
    if (!found || found.isArchived) throw errors.badRequest('Invalid channel ID');
    if (mustBePrivate && !found.inviteOnly) throw errors.badRequest('Moderation request channel must be private.');
  };
  if (changes.default_language !== undefined && !(changes.default_language in languages)) throw errors.badRequest(`Invalid language '${changes.default_language}'`);
  if (changes.video_chat_provider !== undefined && !Object.values(videoChatProviders(ctx.config)).some((p) => p.id === changes.video_chat_provider)) {
    throw errors.badRequest(`Invalid video_chat_provider ${changes.video_chat_provider}`);
  }
  if (changes.giphy_rating !== undefined && !Object.values(giphyRatingOptions).some((p) => p.id === changes.giphy_rating)) throw errors.badRequest(`Invalid giphy_rating ${changes.giphy_rating}`);
  for (const name of realmChannelSettingNames) channel(changes[name], name === 'moderation_request_channel_id');
  channel(changes.new_stream_announcements_stream_id);
}

function draftNames({ realm, updated }: Draft, changes: RealmChanges): void {
  if (changes.name !== undefined && changes.name !== realm.name) updated.push(['name', (realm.name = changes.name)]);
  if (changes.description !== undefined && changes.description !== realm.description) updated.push(['description', (realm.description = changes.description)]);
}

/** The organization's settings: plain properties and group settings. */
function draftSettings(ctx: CommandContext, { properties, permissions, updated, updatedDict }: Draft, changes: RealmChanges): void {
  const plain = <K extends RealmPropertyName>(name: K, value: RealmProperties[K]) => {
    if (realmProperty(ctx.state, name) === value) return;
    properties[name] = value;
    updated.push([name, value]);
  };
  for (const name of Object.keys(changes)) {
    if (name === 'message_content_delete_limit_seconds') plain(name, timeLimit(name, changes[name]!));
    else if (name === 'message_retention_days') plain(name, changes[name] === 'unlimited' ? -1 : changes[name]!);
    else if (isProperty(name)) plain(name, changes[name]!);
    else if (isGroupSetting(name)) {
      const value: GroupSetting = changedSetting(ctx.state, realmGroupSetting(ctx.state, name), changes[name]!);
      permissions[name] = value;
      updatedDict[name] = value;
    }
  }
}

/** Message editing and moving: whether, and for how long. */
function draftEditing({ editing, updated, updatedDict }: Draft, changes: RealmChanges): void {
  const edit = <K extends keyof MessageEditSettings>(key: K, name: string, value: MessageEditSettings[K] | undefined, dict: boolean) => {
    if (value === undefined || editing[key] === value) return;
    editing[key] = value;
    if (dict) updatedDict[name] = value;
    else updated.push([name, value]);
  };
  const limit = (name: 'message_content_edit_limit_seconds' | 'move_messages_within_stream_limit_seconds' | 'move_messages_between_streams_limit_seconds') =>
    changes[name] === undefined ? undefined : timeLimit(name, changes[name]);
  edit('allowMessageEditing', 'allow_message_editing', changes.allow_message_editing, true);
  edit('contentEditLimitSeconds', 'message_content_edit_limit_seconds', limit('message_content_edit_limit_seconds'), true);
  edit('moveWithinChannelLimitSeconds', 'move_messages_within_stream_limit_seconds', limit('move_messages_within_stream_limit_seconds'), false);
  edit('moveBetweenChannelsLimitSeconds', 'move_messages_between_streams_limit_seconds', limit('move_messages_between_streams_limit_seconds'), false);
}

/** The record's own fields: edit history, spectators, the topics policy, announcements. */
function draftRecordFields({ realm, updated, updatedDict }: Draft, changes: RealmChanges): void {
  if (changes.allow_edit_history !== undefined && changes.allow_edit_history !== (realm.editHistoryVisible !== false)) {
    realm.editHistoryVisible = changes.allow_edit_history;
    updated.push(['allow_edit_history', changes.allow_edit_history], ['message_edit_history_visibility_policy', changes.allow_edit_history ? 'all' : 'none']);
  }
  if (changes.enable_spectator_access !== undefined && changes.enable_spectator_access !== realm.enableSpectatorAccess) {
    updated.push(['enable_spectator_access', (realm.enableSpectatorAccess = changes.enable_spectator_access)]);
  }
  const topicsPolicy = changes.topics_policy ?? (changes.mandatory_topics === undefined ? undefined : changes.mandatory_topics ? 'disable_empty_topic' : 'allow_empty_topic');
  if (topicsPolicy !== undefined && topicsPolicy !== realm.topicsPolicy) {
    realm.topicsPolicy = topicsPolicy;
    Object.assign(updatedDict, { topics_policy: topicsPolicy, mandatory_topics: topicsPolicy === 'disable_empty_topic' });
  }
  const announcements = changes.new_stream_announcements_stream_id;
  if (announcements !== undefined && announcements !== (realm.newChannelAnnouncementsChannelId ?? -1)) {
    realm.newChannelAnnouncementsChannelId = announcements === -1 ? null : announcements;
    updated.push(['new_stream_announcements_stream_id', announcements]);
  }
}

/** The events, after the change is applied: the deprecated policies register still reports follow
 * the group settings they are read from. */
function announceRealmUpdate(ctx: CommandContext, before: Record<string, number>, { updated, updatedDict }: Plan): void {
  const legacy = Object.entries(legacyPolicyValues(ctx.state)).filter(([name, value]) => before[name] !== value);
  const everyone = ctx.activeUserIds();
  for (const [property, value] of [...updated, ...legacy]) ctx.emit({ type: 'realm', op: 'update', property, value }, everyone);
  if (Object.keys(updatedDict).length > 0) ctx.emit({ type: 'realm', op: 'update_dict', property: 'default', data: updatedDict }, everyone);
}

export const realmUpdateCommands = {
  'realm.update': writeCommand((ctx, changes: RealmChanges) => {
    const plan = checkRealmUpdate(ctx, ctx.user, changes);
    const legacyBefore = legacyPolicyValues(ctx.state);
    ctx.saveRealm(plan.realm);
    announceRealmUpdate(ctx, legacyBefore, plan);
    // Zulip answers each changed setting; strings as "updated".
    return Object.fromEntries([...plan.updated, ...Object.entries(plan.updatedDict)].map(([name, value]) => [name, typeof value === 'string' ? 'updated' : value]));
  }),
};
