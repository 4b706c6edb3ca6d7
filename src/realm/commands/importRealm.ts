// Importing a Zulip export into a new realm (`manage import`): every row gets a new Parley ID, as
// Zulip's importer (zerver/lib/import_realm.py) re-maps them, and is saved the way the commands
// that make such rows save them. `realm.import` takes realm.json's tables and answers the ID maps
// the messages need; `realm.importMessages` then takes one messages-NNNNNN.json at a time. The
// tables were checked by the caller (cli/zulipImport.ts): a reference that resolves nowhere here
// is a bug, not bad input. Nothing is announced: the realm is new and nobody is connected to it.
import { channelPermissionDefaults, channelPermissions, type ChannelPermission, type ChannelRecord, type SubscriptionRecord } from '../../channels/records.js';
import { errors } from '../../errors.js';
import { visibilityPolicies } from '../../machines/topic.js';
import { groupPermissions, SystemGroup, type GroupPermission, type GroupRecord, type GroupSetting, type SystemGroupName } from '../../groups/records.js';
import { renderMarkdown } from '../../markdown/index.js';
import { renderedFields, type EditRecord, type MessageRecord, type ReactionRecord } from '../../messages/records.js';
import { renderAs } from '../../messages/render.js';
import type { RealmRecord } from '../../organization/records.js';
import { realmGroupSettingNames, realmPropertyDefaults, type RealmPropertyName } from '../../organization/settings.js';
import { newApiKey } from '../../users/apiKey.js';
import { sizeOf } from '../../users/botStorage.js';
import type { ReactionType } from '../../users/emoji.js';
import { FieldType, isFieldType, type FieldRecord } from '../../users/profileFields.js';
import { EmailVisibility, Role, roles, type UserRecord } from '../../users/records.js';
import { settingDefs, userSettingNames } from '../../users/settingDefinitions.js';
import { withUserSetting } from '../../users/settings.js';
import { writeCommand, type CommandContext } from '../context.js';
import { welcomeBot } from './welcomeBot.js';
import { channelSettings, KEPT_FLAGS, RecipientType, rowsBy, systemBots, WELCOME_BOT_EMAIL, type ZulipMessageFile, type ZulipNamedUserGroup, type ZulipReaction, type ZulipRealmTables, type ZulipSubMessage, type ZulipStream } from '../zulipFormat.js';
import { setFirstMessageId } from './firstMessage.js';
import { dmRecipientId } from './messages.js';
import { noteHistoricalRows } from './rowHolders.js';

/** Where an exported recipient's messages go: a channel, or the users of a direct message (a
 * personal recipient's one user, with the sender added per message; a group's every member). */
export type RecipientTarget = { channelId: number } | { userIds: number[] };

/** Old (exported) IDs → new ones, as plain data (commands' inputs and outputs travel). */
export interface ImportMaps {
  users: [number, number][];
  channels: [number, number][];
  groups: [number, number][];
  recipients: [number, RecipientTarget][];
}

export interface MessageBatch {
  maps: ImportMaps;
  file: ZulipMessageFile;
  /** The reactions to this file's messages, and their widgets' submessages. */
  reactions: ZulipReaction[];
  submessages: ZulipSubMessage[];
  /** zerver_client: ID → name. */
  clients: [number, string][];
}

const isRole = (value: number): value is Role => (roles as readonly number[]).includes(value);
const emailVisibilities = new Set<number>(Object.values(EmailVisibility));

/** A map that throws on a missing key: every reference was checked before the import. */
function lookup<K, V>(map: ReadonlyMap<K, V>, key: K, what: string): V {
  const value = map.get(key);
  if (value === undefined) throw new Error(`import: no ${what} ${String(key)}`);
  return value;
}

/** A group's direct members and subgroups, as new IDs. */
type Memberships = (groupId: number) => { members: number[]; subgroups: number[] };

function membershipReader(tables: ZulipRealmTables, groupIds: ReadonlyMap<number, number>, userIds: ReadonlyMap<number, number>): Memberships {
  const members = rowsBy(tables.zerver_usergroupmembership, (row) => row.user_group);
  const subgroups = rowsBy(tables.zerver_groupgroupmembership, (row) => row.supergroup);
  return (groupId) => ({
    members: (members.get(groupId) ?? []).flatMap((row) => userIds.get(row.user_profile) ?? []),
    subgroups: (subgroups.get(groupId) ?? []).flatMap((row) => groupIds.get(row.subgroup) ?? []),
  });
}

/** A group setting: a named group's new ID, or an anonymous group's members and subgroups. */
function groupSettingReader(groupIds: ReadonlyMap<number, number>, memberships: Memberships, nobody: number) {
  return (value: unknown): GroupSetting => {
    if (typeof value !== 'number') return nobody;
    const named = groupIds.get(value);
    if (named !== undefined) return named;
    const { members, subgroups } = memberships(value);
    return { direct_members: members, direct_subgroups: subgroups };
  };
}

function importUsers(ctx: CommandContext, tables: ZulipRealmTables): Map<number, number> {
  const ids = new Map<number, number>();
  // Zulip's cross-realm bots become the realm's own: Welcome Bot's messages stay Welcome Bot's,
  // every other system bot's are the notification bot's.
  const botId = ctx.state.realm.notificationBotId!;
  for (const bot of tables.zerver_userprofile_crossrealm) ids.set(bot.id, bot.email === WELCOME_BOT_EMAIL ? welcomeBot(ctx).id : botId);
  const profiles = [...tables.zerver_userprofile, ...tables.zerver_userprofile_mirrordummy].sort((a, b) => a.id - b.id);
  for (const profile of profiles) ids.set(profile.id, ctx.store.nextId('user'));
  const alertWords = rowsBy(tables.zerver_alertword, (row) => row.user_profile);
  const statuses = rowsBy(tables.zerver_userstatus, (row) => row.user_profile);
  const mutedUsers = rowsBy(tables.zerver_muteduser, (row) => row.user_profile);
  for (const profile of profiles) {
    let user: UserRecord = {
      id: ids.get(profile.id)!,
      realmId: ctx.state.realm.id,
      email: profile.delivery_email || profile.email,
      fullName: profile.full_name,
      role: isRole(profile.role) ? profile.role : Role.member,
      isActive: profile.is_active && !profile.is_mirror_dummy,
      isBot: profile.is_bot,
      botType: profile.is_bot ? (profile.bot_type ?? 1) : null,
      botOwnerId: profile.bot_owner === null ? null : (ids.get(profile.bot_owner) ?? null),
      // Zulip's export leaves keys and passwords out; its importer makes new keys too.
      apiKey: newApiKey(),
      passwordHash: null,
      dateCreated: Math.floor(profile.date_joined),
      firstLogin: profile.last_login === null ? null : Math.floor(profile.last_login),
      timezone: profile.timezone,
      avatarSource: 'G',
      avatarVersion: profile.avatar_version,
      isImportedStub: profile.is_mirror_dummy,
      isDeleted: false,
      emailAddressVisibility: emailVisibilities.has(profile.email_address_visibility) ? (profile.email_address_visibility as EmailVisibility) : EmailVisibility.everyone,
    };
    for (const name of userSettingNames) {
      const value = profile[name];
      const wanted = settingDefs[name].default;
      if (value !== undefined && (typeof value === typeof wanted || (value === null && wanted === null))) user = withUserSetting(user, name, value as typeof wanted);
    }
    const words = (alertWords.get(profile.id) ?? []).map((row) => row.word);
    if (words.length > 0) user.alertWords = words;
    const muted = (mutedUsers.get(profile.id) ?? []).filter((row) => ids.has(row.muted_user));
    if (muted.length > 0) user.mutedUsers = muted.map((row) => ({ id: ids.get(row.muted_user)!, timestamp: Math.floor(row.date_muted) }));
    const status = statuses.get(profile.id)?.at(-1);
    if (status && (status.status_text !== '' || status.emoji_name !== '')) {
      user.status = { text: status.status_text, emoji: status.emoji_name === '' ? null : { emojiName: status.emoji_name, emojiCode: status.emoji_code, reactionType: status.reaction_type as ReactionType }, away: false };
    }
    ctx.save('user', user);
  }
  return ids;
}

function importGroups(ctx: CommandContext, tables: ZulipRealmTables, userIds: ReadonlyMap<number, number>): { ids: Map<number, number>; setting: (value: unknown) => GroupSetting } {
  const ids = new Map<number, number>();
  const systemNames = new Set<string>(Object.values(SystemGroup));
  const groupId = (row: ZulipNamedUserGroup) => row.usergroup_ptr ?? row.id;
  const created = tables.zerver_namedusergroup.filter((row) => !(row.is_system_group && systemNames.has(row.name)));
  for (const row of tables.zerver_namedusergroup) {
    if (!row.is_system_group || !systemNames.has(row.name)) continue;
    const system = ctx.state.groups.get(ctx.state.systemGroup(row.name as SystemGroupName))!;
    ids.set(groupId(row), system.id);
    if (row.date_created !== null) ctx.save('group', { ...system, dateCreated: Math.floor(row.date_created) });
  }
  for (const row of created) ids.set(groupId(row), ctx.store.nextId('group'));
  const memberships = membershipReader(tables, ids, userIds);
  const setting = groupSettingReader(ids, memberships, ctx.state.systemGroup(SystemGroup.nobody));
  for (const row of created) {
    const id = groupId(row);
    const { members, subgroups } = memberships(id);
    const group: GroupRecord = {
      id: ids.get(id)!,
      realmId: ctx.state.realm.id,
      name: row.name,
      description: row.description,
      isSystemGroup: false,
      members,
      subgroups,
      deactivated: row.deactivated,
      creatorId: row.creator === null ? null : (userIds.get(row.creator) ?? null),
      dateCreated: Math.floor(row.date_created ?? ctx.now),
      permissions: Object.fromEntries(
        groupPermissions.map((permission) => [permission, row[permission] === undefined ? ctx.state.systemGroup(permission === 'can_mention_group' ? SystemGroup.everyone : SystemGroup.nobody) : setting(row[permission])]),
      ) as Record<GroupPermission, GroupSetting>,
    };
    ctx.save('group', group);
  }
  return { ids, setting };
}

function channelPermissionsOf(ctx: CommandContext, row: ZulipStream, creatorId: number | null, setting: (value: unknown) => GroupSetting): Record<ChannelPermission, GroupSetting> {
  const fallback = (permission: ChannelPermission): GroupSetting => {
    const name = channelPermissionDefaults[permission];
    if (name !== 'stream_creator_or_nobody') return ctx.state.systemGroup(name);
    return creatorId === null ? ctx.state.systemGroup(SystemGroup.nobody) : { direct_members: [creatorId], direct_subgroups: [] };
  };
  return Object.fromEntries(channelPermissions.map((permission) => [permission, row[permission] === undefined ? fallback(permission) : setting(row[permission])])) as Record<ChannelPermission, GroupSetting>;
}

function importChannels(ctx: CommandContext, tables: ZulipRealmTables, userIds: ReadonlyMap<number, number>, setting: (value: unknown) => GroupSetting): Map<number, ChannelRecord> {
  const channels = new Map<number, ChannelRecord>();
  for (const row of [...tables.zerver_stream].sort((a, b) => a.id - b.id)) {
    const creatorId = row.creator === null ? null : (userIds.get(row.creator) ?? null);
    const channel: ChannelRecord = {
      id: ctx.store.nextId('channel'),
      realmId: ctx.state.realm.id,
      recipientId: ctx.store.nextId('recipient'),
      name: row.name,
      description: row.description,
      renderedDescription: renderMarkdown(row.description),
      dateCreated: Math.floor(row.date_created),
      creatorId,
      inviteOnly: row.invite_only,
      isWebPublic: row.is_web_public,
      historyPublicToSubscribers: row.history_public_to_subscribers,
      messageRetentionDays: row.message_retention_days,
      topicsPolicy: 'inherit',
      folderId: null,
      isArchived: row.deactivated,
      firstMessageId: null,
      isRecentlyActive: row.is_recently_active,
      permissions: channelPermissionsOf(ctx, row, creatorId, setting),
    };
    ctx.save('channel', channel);
    channels.set(row.id, channel);
  }
  return channels;
}

/** Each exported recipient's target; personal and group recipients resolve to new user IDs. */
function recipientTargets(tables: ZulipRealmTables, userIds: ReadonlyMap<number, number>, channels: ReadonlyMap<number, ChannelRecord>): Map<number, RecipientTarget> {
  const targets = new Map<number, RecipientTarget>();
  const subscribers = rowsBy(tables.zerver_subscription, (row) => row.recipient);
  for (const bot of tables.zerver_userprofile_crossrealm) targets.set(bot.recipient_id, { userIds: [lookup(userIds, bot.id, 'user')] });
  for (const recipient of tables.zerver_recipient) {
    if (recipient.type === RecipientType.stream) targets.set(recipient.id, { channelId: lookup(channels, recipient.type_id, 'stream').id });
    else if (recipient.type === RecipientType.personal) targets.set(recipient.id, { userIds: [lookup(userIds, recipient.type_id, 'user')] });
    else {
      const members = (subscribers.get(recipient.id) ?? []).map((row) => lookup(userIds, row.user_profile, 'user'));
      targets.set(recipient.id, { userIds: [...new Set(members)].sort((a, b) => a - b) });
    }
  }
  return targets;
}

function importSubscriptions(ctx: CommandContext, tables: ZulipRealmTables, userIds: ReadonlyMap<number, number>, targets: ReadonlyMap<number, RecipientTarget>): void {
  for (const row of tables.zerver_subscription) {
    const target = targets.get(row.recipient);
    if (!target || !('channelId' in target)) continue;
    const subscription: SubscriptionRecord = {
      realmId: ctx.state.realm.id,
      channelId: target.channelId,
      userId: lookup(userIds, row.user_profile, 'user'),
      active: row.active,
      color: row.color,
      isMuted: row.is_muted,
      pinToTop: row.pin_to_top,
      desktopNotifications: row.desktop_notifications,
      audibleNotifications: row.audible_notifications,
      pushNotifications: row.push_notifications,
      emailNotifications: row.email_notifications,
      wildcardMentionsNotify: row.wildcard_mentions_notify,
    };
    ctx.save('subscription', subscription);
  }
}

function importProfileFields(ctx: CommandContext, tables: ZulipRealmTables, userIds: ReadonlyMap<number, number>): void {
  const fields = new Map<number, FieldRecord>();
  for (const row of [...tables.zerver_customprofilefield].sort((a, b) => a.order - b.order || a.id - b.id)) {
    if (!isFieldType(row.field_type)) continue;
    const field: FieldRecord = {
      id: ctx.store.nextId('field'),
      realmId: ctx.state.realm.id,
      name: row.name,
      hint: row.hint,
      type: row.field_type,
      fieldData: row.field_data === '' ? {} : (JSON.parse(row.field_data) as Record<string, unknown>),
      order: row.order,
      displayInProfileSummary: row.display_in_profile_summary,
      required: row.required,
      editableByUser: row.editable_by_user,
    };
    ctx.save('profileField', field);
    fields.set(row.id, field);
  }
  const byUser = new Map<number, Record<string, string>>();
  for (const row of tables.zerver_customprofilefieldvalue) {
    const field = fields.get(row.field);
    const userId = userIds.get(row.user_profile);
    if (!field || userId === undefined) continue;
    // A person-picker value lists user IDs, re-mapped as Zulip's importer does.
    const value = field.type === FieldType.users ? JSON.stringify((JSON.parse(row.value) as number[]).flatMap((id) => userIds.get(id) ?? [])) : row.value;
    byUser.set(userId, { ...byUser.get(userId), [String(field.id)]: value });
  }
  for (const [userId, profileData] of byUser) ctx.save('user', { ...ctx.state.users.get(userId)!, profileData });
}

/** The realm row's settings Parley has, under Zulip's names. */
function importRealmSettings(ctx: CommandContext, tables: ZulipRealmTables, channels: ReadonlyMap<number, ChannelRecord>, setting: (value: unknown) => GroupSetting): void {
  const row = tables.zerver_realm[0]!;
  const properties: Partial<Record<RealmPropertyName, unknown>> = {};
  const channelValued = new Set<string>(channelSettings.map(([property]) => property));
  for (const name of Object.keys(realmPropertyDefaults) as RealmPropertyName[]) {
    const value = row[name];
    const wanted = realmPropertyDefaults[name];
    // A setting whose default is null (no value) takes a string; others only their own type.
    const fits = wanted === null ? value === null || typeof value === 'string' : typeof value === typeof wanted;
    if (!channelValued.has(name) && value !== undefined && value !== wanted && fits) properties[name] = value;
  }
  for (const [property, column] of channelSettings) {
    const channel = typeof row[column] === 'number' ? channels.get(row[column]) : undefined;
    if (channel) properties[property] = channel.id;
  }
  const permissions = { ...ctx.state.realm.permissions };
  for (const name of realmGroupSettingNames) if (typeof row[name] === 'number') permissions[name] = setting(row[name]);
  const bool = (name: string, fallback: boolean) => (typeof row[name] === 'boolean' ? (row[name] as boolean) : fallback);
  const seconds = (name: string, fallback: number | null) => (typeof row[name] === 'number' || row[name] === null ? (row[name] as number | null) : fallback);
  const editing = ctx.state.realm.messageEditing!;
  const announcements = typeof row.new_stream_announcements_stream === 'number' ? (channels.get(row.new_stream_announcements_stream)?.id ?? null) : null;
  // The realm keeps its creation time, and so do the bots made with it (Parley's exports say when;
  // Zulip's system bots are older than the realm).
  const dateCreated = typeof row.date_created === 'number' ? Math.floor(row.date_created) : ctx.state.realm.dateCreated;
  for (const [email, userId] of systemBots(ctx.state.realm)) {
    const bot = userId === undefined ? undefined : ctx.state.users.get(userId);
    if (!bot) continue;
    const joined = tables.zerver_userprofile_crossrealm.find((crossRealm) => crossRealm.email === email)?.date_joined;
    ctx.save('user', { ...bot, dateCreated: typeof joined === 'number' ? Math.floor(joined) : dateCreated });
  }
  const changes: Partial<RealmRecord> = {
    dateCreated,
    name: typeof row.name === 'string' ? row.name : ctx.state.realm.name,
    description: typeof row.description === 'string' ? row.description : '',
    enableSpectatorAccess: bool('enable_spectator_access', false),
    editHistoryVisible: bool('allow_edit_history', true),
    newChannelAnnouncementsChannelId: announcements,
    defaultChannelIds: tables.zerver_defaultstream.flatMap((defaultStream) => channels.get(defaultStream.stream)?.id ?? []),
    permissions,
    messageEditing: {
      allowMessageEditing: bool('allow_message_editing', editing.allowMessageEditing),
      contentEditLimitSeconds: seconds('message_content_edit_limit_seconds', editing.contentEditLimitSeconds),
      moveWithinChannelLimitSeconds: seconds('move_messages_within_stream_limit_seconds', editing.moveWithinChannelLimitSeconds),
      moveBetweenChannelsLimitSeconds: seconds('move_messages_between_streams_limit_seconds', editing.moveBetweenChannelsLimitSeconds),
    },
  };
  if (Object.keys(properties).length > 0) changes.properties = properties as RealmRecord['properties'];
  ctx.saveRealm(changes);
}

/** Linkifiers, in their order (the caller left out those Parley cannot compile). */
function importLinkifiers(ctx: CommandContext, tables: ZulipRealmTables): void {
  for (const row of [...tables.zerver_realmfilter].sort((a, b) => a.order - b.order || a.id - b.id)) {
    ctx.save('linkifier', {
      id: ctx.store.nextId('linkifier'),
      realmId: ctx.state.realm.id,
      pattern: row.pattern,
      urlTemplate: row.url_template,
      reverseTemplate: row.reverse_template ?? null,
      alternativeUrlTemplates: row.alternative_url_templates ?? [],
      order: row.order,
    });
  }
}

function importUserTopics(ctx: CommandContext, tables: ZulipRealmTables, userIds: ReadonlyMap<number, number>, channels: ReadonlyMap<number, ChannelRecord>): void {
  for (const row of tables.zerver_usertopic) {
    const channel = channels.get(row.stream);
    const userId = userIds.get(row.user_profile);
    // inherit (0) is the absence of a row; an unknown policy is left out.
    if (!channel || userId === undefined || row.visibility_policy === 0 || visibilityPolicies[row.visibility_policy] === undefined) continue;
    ctx.store.userTopics.put(ctx.ownerOf(userId), { channelId: channel.id, topic: row.topic_name, policy: row.visibility_policy, lastUpdated: Math.floor(row.last_updated) });
  }
}

/** Bots' storage as it was, whatever its size (Zulip's importer checks no limit either): a bot over
 * the limit can remove keys but add none. */
function importBotStorage(ctx: CommandContext, tables: ZulipRealmTables, userIds: ReadonlyMap<number, number>): void {
  for (const [oldId, rows] of rowsBy(tables.zerver_botstoragedata, (row) => row.bot_profile)) {
    const userId = lookup(userIds, oldId, 'user');
    // One entry per key, the last row's, as the unique key of Zulip's table keeps them.
    const entries = new Map(rows.map((row) => [row.key, { key: row.key, value: row.value }]));
    for (const entry of entries.values()) ctx.save('botStorageEntry', { ...entry, userId });
    ctx.save('botStorageSize', { userId, characters: sizeOf(entries.values()) });
  }
}

/** Zulip's rendered HTML names users, channels and groups by ID: those IDs are re-mapped, as
 * Zulip's importer does (fix_message_rendered_content). */
function remapRendered(html: string, maps: { users: ReadonlyMap<number, number>; channels: ReadonlyMap<number, number>; groups: ReadonlyMap<number, number> }): string {
  const swap = (map: ReadonlyMap<number, number>) => (whole: string, before: string, id: string) => {
    const mapped = map.get(Number(id));
    return mapped === undefined ? whole : `${before}${mapped}`;
  };
  return html
    .replace(/(data-user-id=")(\d+)/g, swap(maps.users))
    .replace(/(data-stream-id=")(\d+)/g, swap(maps.channels))
    .replace(/(data-user-group-id=")(\d+)/g, swap(maps.groups))
    .replace(/(#narrow\/(?:stream|channel)\/)(\d+)/g, swap(maps.channels));
}

/** Zulip's edit_history (JSON text, newest first) as Parley's edits (oldest first). */
function editsOf(text: string | null, users: ReadonlyMap<number, number>, channels: ReadonlyMap<number, number>): EditRecord[] | undefined {
  if (text === null) return undefined;
  const entries = JSON.parse(text) as { user_id: number | null; timestamp: number; prev_content?: string; prev_rendered_content?: string | null; prev_topic?: string; prev_stream?: number }[];
  const edits = entries.reverse().map((entry) => {
    const edit: EditRecord = { timestamp: Math.floor(entry.timestamp), userId: (entry.user_id !== null && users.get(entry.user_id)) || 0 };
    if (entry.prev_content !== undefined) edit.prevContent = entry.prev_content;
    if (typeof entry.prev_rendered_content === 'string') edit.prevRenderedContent = entry.prev_rendered_content;
    if (entry.prev_topic !== undefined) edit.prevTopic = entry.prev_topic;
    const prevChannel = entry.prev_stream === undefined ? undefined : channels.get(entry.prev_stream);
    if (prevChannel !== undefined) edit.prevChannelId = prevChannel;
    return edit;
  });
  return edits.length > 0 ? edits : undefined;
}

function importMessages(ctx: CommandContext, batch: MessageBatch): number {
  const users = new Map(batch.maps.users);
  const channelIds = new Map(batch.maps.channels);
  const maps = { users, channels: channelIds, groups: new Map(batch.maps.groups) };
  const targets = new Map(batch.maps.recipients);
  const clients = new Map(batch.clients);
  const rows = rowsBy(batch.file.zerver_usermessage, (row) => row.message);
  const reactions = rowsBy(batch.reactions, (row) => row.message);
  const submessages = rowsBy(batch.submessages, (row) => row.message);
  // Each user's channel conversations with rows in this batch: those of users never subscribed
  // came from the channel's history (Zulip's historical rows), recorded once per batch.
  const channelRows = new Map<number, Set<number>>();
  for (const row of [...batch.file.zerver_message].sort((a, b) => a.id - b.id)) {
    const sender = ctx.state.users.get(lookup(users, row.sender, 'user'))!;
    const target = lookup(targets, row.recipient, 'recipient');
    const channel = 'channelId' in target ? ctx.state.channels.get(target.channelId)! : undefined;
    const participants = 'userIds' in target ? [...new Set([sender.id, ...target.userIds])].sort((a, b) => a - b) : [];
    const message: MessageRecord = {
      id: ctx.store.nextId('message'),
      realmId: ctx.state.realm.id,
      senderId: sender.id,
      recipientId: channel ? channel.recipientId : dmRecipientId(ctx, participants),
      type: channel ? 'stream' : 'private',
      channelId: channel?.id ?? null,
      topic: channel ? row.subject : '',
      participants,
      content: row.content,
      // Zulip's HTML as it was rendered (as its importer keeps it); rendered here only when absent.
      ...renderedFields(row.rendered_content === null ? renderAs(ctx.state, ctx.config, sender, row.content).html : remapRendered(row.rendered_content, maps)),
      timestamp: Math.floor(row.date_sent),
      client: clients.get(row.sending_client) ?? 'Zulip import',
    };
    const edits = editsOf(row.edit_history, users, channelIds);
    if (edits) message.edits = edits;
    const messageReactions: ReactionRecord[] = (reactions.get(row.id) ?? []).map((reaction) => ({
      userId: lookup(users, reaction.user_profile, 'user'),
      emojiName: reaction.emoji_name,
      emojiCode: reaction.emoji_code,
      reactionType: reaction.reaction_type as ReactionType,
    }));
    if (messageReactions.length > 0) message.reactions = messageReactions;
    const widget = (submessages.get(row.id) ?? []).sort((a, b) => a.id - b.id);
    if (widget.length > 0) message.submessages = widget.map((submessage) => ({ id: ctx.store.nextId('submessage'), senderId: lookup(users, submessage.sender, 'user'), msgType: submessage.msg_type, content: submessage.content }));
    // Only the flags Parley has (Zulip's is_private, push-notification and other bits go).
    // Each user's row once (cross-realm bots are one user here): the last one's flags.
    const flagsOf = new Map((rows.get(row.id) ?? []).map((userMessage) => [lookup(users, userMessage.user_profile, 'user'), userMessage.flags_mask & KEPT_FLAGS]));
    const received = [...flagsOf.keys()];
    ctx.store.userMessages.appendMessage(message.recipientId, message.id, received, [...flagsOf.values()]);
    if (channel) for (const userId of received) channelRows.set(userId, (channelRows.get(userId) ?? new Set()).add(message.recipientId));
    ctx.saveMessage(message);
    if (channel) {
      ctx.store.indexInChannel(channel.id, message.id, message.topic);
      if (channel.firstMessageId === null) setFirstMessageId(ctx, channel, message.id);
    }
  }
  for (const [userId, recipientIds] of channelRows) noteHistoricalRows(ctx, userId, recipientIds);
  return batch.file.zerver_message.length;
}

export const importCommands = {
  /** realm.json into the new realm (run by `manage import` right after creating it). */
  'realm.import': writeCommand((ctx, tables: ZulipRealmTables): ImportMaps => {
    if (ctx.hasUser) throw errors.insufficientRights();
    const users = importUsers(ctx, tables);
    const groups = importGroups(ctx, tables, users);
    const channels = importChannels(ctx, tables, users, groups.setting);
    const targets = recipientTargets(tables, users, channels);
    importSubscriptions(ctx, tables, users, targets);
    importProfileFields(ctx, tables, users);
    importRealmSettings(ctx, tables, channels, groups.setting);
    importUserTopics(ctx, tables, users, channels);
    importLinkifiers(ctx, tables);
    importBotStorage(ctx, tables, users);
    return {
      users: [...users],
      channels: [...channels].map(([old, channel]) => [old, channel.id]),
      groups: [...groups.ids],
      recipients: [...targets],
    };
  }),

  /** One messages-NNNNNN.json, after realm.import; message IDs keep the export's order. */
  'realm.importMessages': writeCommand((ctx, batch: MessageBatch) => {
    if (ctx.hasUser) throw errors.insufficientRights();
    return { messages: importMessages(ctx, batch) };
  }),
};
