// `manage export`: one realm in Zulip's export format (zerver/lib/export.py): realm.json with the
// realm's tables, messages-000001.json… with 1,000 messages each and their UserMessage rows,
// attachment.json, the records.json of uploads/avatars/emoji/realm_icons (empty: files are not
// carried yet), and a .tar.gz of the directory beside it, as Zulip's `manage.py export` writes.
// The realm is read from a compacted copy of the store taken in one LMDB read transaction, so the
// export is of one moment while a server goes on writing.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { open } from 'lmdb';
import { create as createTar } from 'tar';
import { channelPermissions } from '../channels/records.js';
import { groupPermissions, systemGroups, type GroupSetting, type SystemGroupName } from '../groups/records.js';
import type { MessageRecord } from '../messages/records.js';
import { fakeEmailDomain, type RealmRecord } from '../organization/records.js';
import { realmGroupSettingNames } from '../organization/settings.js';
import { realmPropertyDefaults } from '../organization/settingDefaults.js';
import { Store } from '../store/store.js';
import { EmailVisibility, type UserRecord } from '../users/records.js';
import {
  directMessageGroupHash,
  IS_PRIVATE_FLAG,
  messageFileName,
  MESSAGES_PER_FILE,
  RecipientType,
  type ZulipMessage,
  type ZulipMessageFile,
  type ZulipRealmTables,
  type ZulipUserMessage,
  type ZulipUserProfile,
} from '../realm/zulipFormat.js';
import { emptyOrAbsent, STORE_FILE } from './backup.js';

export class ExportError extends Error {}

/** The name of Parley's notification bot in the export: Zulip's system bot of that name. */
const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';

export interface ExportSummary {
  realm: string;
  users: number;
  channels: number;
  messages: number;
  files: number;
  tarball: string;
}

const writeJson = (file: string, data: unknown) => writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);

/** Group settings as Zulip stores them: a group's ID; a set of users and groups becomes an
 * anonymous group (a zerver_usergroup row without a name) with its memberships. */
class GroupSettings {
  private nextId: number;
  private nextMembershipId = 1;

  constructor(
    private readonly tables: ZulipRealmTables,
    private readonly realmId: number,
    lastGroupId: number,
  ) {
    this.nextId = lastGroupId + 1;
  }

  member(groupId: number, userId: number): void {
    this.tables.zerver_usergroupmembership.push({ id: this.nextMembershipId++, user_group: groupId, user_profile: userId });
  }

  subgroup(groupId: number, subgroupId: number): void {
    this.tables.zerver_groupgroupmembership.push({ id: this.nextMembershipId++, supergroup: groupId, subgroup: subgroupId });
  }

  idOf(setting: GroupSetting): number {
    if (typeof setting === 'number') return setting;
    const id = this.nextId++;
    this.tables.zerver_usergroup.push({ id, realm: this.realmId });
    for (const userId of setting.direct_members) this.member(id, userId);
    for (const subgroupId of setting.direct_subgroups) this.subgroup(id, subgroupId);
    return id;
  }
}

/** Zulip's realm row: its settings under Zulip's names (group settings as group IDs). */
function realmRow(realm: RealmRecord, settings: GroupSettings): Record<string, unknown> {
  const editing = realm.messageEditing;
  const row: Record<string, unknown> = {
    id: realm.id,
    string_id: realm.subdomain,
    name: realm.name,
    description: realm.description,
    date_created: realm.dateCreated,
    deactivated: realm.deactivated,
    enable_spectator_access: realm.enableSpectatorAccess,
    allow_edit_history: realm.editHistoryVisible,
    message_edit_history_visibility_policy: realm.editHistoryVisible ? 1 : 3,
    new_stream_announcements_stream: realm.newChannelAnnouncementsChannelId,
    ...realmPropertyDefaults,
    ...realm.properties,
  };
  if (editing) {
    row.allow_message_editing = editing.allowMessageEditing;
    row.message_content_edit_limit_seconds = editing.contentEditLimitSeconds;
    row.move_messages_within_stream_limit_seconds = editing.moveWithinChannelLimitSeconds;
    row.move_messages_between_streams_limit_seconds = editing.moveBetweenChannelsLimitSeconds;
  }
  for (const name of realmGroupSettingNames) {
    const setting = realm.permissions[name];
    if (setting !== undefined) row[name] = settings.idOf(setting);
  }
  return row;
}

function userRow(user: UserRecord, realm: RealmRecord, domain: string, recipient: number): ZulipUserProfile {
  return {
    ...user.settings,
    id: user.id,
    // The API e-mail: the real address only where everyone may see it (Zulip's `email` field).
    email: user.emailAddressVisibility === EmailVisibility.everyone ? user.email : `user${user.id}@${domain}`,
    delivery_email: user.email,
    full_name: user.fullName,
    realm: realm.id,
    is_active: user.isActive,
    is_bot: user.isBot,
    bot_type: user.botType,
    bot_owner: user.botOwnerId,
    role: user.role,
    timezone: user.timezone,
    date_joined: user.dateCreated,
    last_login: user.firstLogin,
    email_address_visibility: user.emailAddressVisibility,
    avatar_source: 'G',
    avatar_version: user.avatarVersion,
    is_mirror_dummy: false,
    recipient,
  };
}

/** Zulip's edit_history: newest first, as JSON text. */
function editHistory(message: MessageRecord): string | null {
  if (!message.edits || message.edits.length === 0) return null;
  const entries = message.edits.map((edit) => ({
    user_id: edit.userId,
    timestamp: edit.timestamp,
    ...(edit.prevContent !== undefined ? { prev_content: edit.prevContent, prev_rendered_content: edit.prevRenderedContent ?? null } : {}),
    ...(edit.prevTopic !== undefined ? { prev_topic: edit.prevTopic, topic: message.topic } : {}),
    ...(edit.prevChannelId !== undefined ? { prev_stream: edit.prevChannelId, stream: message.channelId } : {}),
  }));
  return JSON.stringify(entries.reverse());
}

/** Everything of the realm in Zulip's tables, and its messages in files of MESSAGES_PER_FILE. */
function realmTables(store: Store, realm: RealmRecord, externalHost: string): { tables: ZulipRealmTables; messageFiles: ZulipMessageFile[] } {
  const tables: ZulipRealmTables = {
    zerver_realm: [],
    zerver_userprofile: [],
    zerver_userprofile_crossrealm: [],
    zerver_userprofile_mirrordummy: [],
    zerver_recipient: [],
    zerver_stream: [],
    zerver_subscription: [],
    zerver_huddle: [],
    zerver_usergroup: [],
    zerver_namedusergroup: [],
    zerver_usergroupmembership: [],
    zerver_groupgroupmembership: [],
    zerver_customprofilefield: [],
    zerver_customprofilefieldvalue: [],
    zerver_defaultstream: [],
    zerver_reaction: [],
    zerver_alertword: [],
    zerver_muteduser: [],
    zerver_usertopic: [],
    zerver_client: [],
  };
  const users = [...store.users.ofRealm(realm.id)];
  const channels = [...store.channels.ofRealm(realm.id)];
  const groups = [...store.groups.ofRealm(realm.id)];
  const settings = new GroupSettings(tables, realm.id, Math.max(0, ...groups.map((group) => group.id)));
  tables.zerver_realm.push(realmRow(realm, settings));
  const domain = fakeEmailDomain(realm, externalHost);

  // Recipients: each channel's and each direct-message group's are Parley's own; a user's personal
  // recipient (Zulip's, for one-to-one messages) gets an ID after every other.
  const messageIds = users.flatMap((user) => [...store.sentBy(user.id)]).sort((a, b) => a - b);
  const messages = messageIds.map((id) => store.messages.get(id)!);
  const lastRecipientId = Math.max(0, ...channels.map((channel) => channel.recipientId), ...messages.map((message) => message.recipientId));
  const personalRecipient = new Map(users.map((user, index) => [user.id, lastRecipientId + 1 + index]));
  let subscriptionId = 1;
  const subscribe = (userId: number, recipient: number, active = true) =>
    tables.zerver_subscription.push({
      id: subscriptionId++,
      user_profile: userId,
      recipient,
      active,
      is_user_active: true,
      color: '#c2c2c2',
      is_muted: false,
      pin_to_top: false,
      desktop_notifications: null,
      audible_notifications: null,
      push_notifications: null,
      email_notifications: null,
      wildcard_mentions_notify: null,
    });

  for (const user of users) {
    const recipient = personalRecipient.get(user.id)!;
    tables.zerver_recipient.push({ id: recipient, type: RecipientType.personal, type_id: user.id });
    if (user.id === realm.notificationBotId) {
      tables.zerver_userprofile_crossrealm.push({ id: user.id, email: NOTIFICATION_BOT_EMAIL, recipient_id: recipient });
      continue;
    }
    tables.zerver_userprofile.push(userRow(user, realm, domain, recipient));
    subscribe(user.id, recipient);
    for (const [index, word] of (user.alertWords ?? []).entries()) tables.zerver_alertword.push({ id: user.id * 10_000 + index, user_profile: user.id, realm: realm.id, word });
    for (const muted of user.mutedUsers ?? []) tables.zerver_muteduser.push({ id: tables.zerver_muteduser.length + 1, user_profile: user.id, muted_user: muted.id, date_muted: muted.timestamp });
  }

  for (const channel of channels) {
    const row: ZulipRealmTables['zerver_stream'][number] = {
      id: channel.id,
      name: channel.name,
      realm: realm.id,
      date_created: channel.dateCreated,
      deactivated: channel.isArchived,
      description: channel.description,
      rendered_description: channel.renderedDescription,
      invite_only: channel.inviteOnly,
      history_public_to_subscribers: channel.historyPublicToSubscribers,
      is_web_public: channel.isWebPublic,
      message_retention_days: channel.messageRetentionDays,
      recipient: channel.recipientId,
      first_message_id: channel.firstMessageId,
      is_recently_active: channel.isRecentlyActive,
      creator: channel.creatorId,
    };
    for (const permission of channelPermissions) row[permission] = settings.idOf(channel.permissions[permission]);
    tables.zerver_stream.push(row);
    tables.zerver_recipient.push({ id: channel.recipientId, type: RecipientType.stream, type_id: channel.id });
  }
  for (const subscription of store.subscriptions.ofRealm(realm.id)) {
    const channel = channels.find((candidate) => candidate.id === subscription.channelId)!;
    tables.zerver_subscription.push({
      id: subscriptionId++,
      user_profile: subscription.userId,
      recipient: channel.recipientId,
      active: subscription.active,
      is_user_active: users.find((user) => user.id === subscription.userId)?.isActive ?? false,
      color: subscription.color,
      is_muted: subscription.isMuted,
      pin_to_top: subscription.pinToTop,
      desktop_notifications: subscription.desktopNotifications,
      audible_notifications: subscription.audibleNotifications,
      push_notifications: subscription.pushNotifications,
      email_notifications: subscription.emailNotifications,
      wildcard_mentions_notify: subscription.wildcardMentionsNotify,
    });
  }
  realm.defaultChannelIds.forEach((stream, index) => tables.zerver_defaultstream.push({ id: index + 1, realm: realm.id, stream }));

  for (const group of groups) {
    tables.zerver_usergroup.push({ id: group.id, realm: realm.id });
    const row: ZulipRealmTables['zerver_namedusergroup'][number] = {
      id: group.id,
      usergroup_ptr: group.id,
      name: group.name,
      description: group.description,
      is_system_group: group.isSystemGroup,
      deactivated: group.deactivated,
      realm_for_sharding: realm.id,
      creator: group.creatorId,
      date_created: group.dateCreated,
    };
    for (const permission of groupPermissions) row[permission] = settings.idOf(group.permissions[permission]);
    tables.zerver_namedusergroup.push(row);
    // System groups' members follow roles (Zulip stores them as memberships).
    const directRoles: readonly number[] = group.isSystemGroup ? (systemGroups[group.name as SystemGroupName]?.directRoles ?? []) : [];
    const members = group.isSystemGroup ? users.filter((user) => directRoles.includes(user.role)).map((user) => user.id) : group.members;
    for (const userId of members) settings.member(group.id, userId);
    for (const subgroupId of group.subgroups) settings.subgroup(group.id, subgroupId);
  }

  for (const field of store.profileFields.ofRealm(realm.id)) {
    tables.zerver_customprofilefield.push({
      id: field.id,
      realm: realm.id,
      name: field.name,
      hint: field.hint,
      order: field.order,
      field_type: field.type,
      field_data: Object.keys(field.fieldData).length === 0 ? '' : JSON.stringify(field.fieldData),
      display_in_profile_summary: field.displayInProfileSummary,
      required: field.required,
      editable_by_user: field.editableByUser,
    });
  }
  for (const user of users) {
    for (const [fieldId, value] of Object.entries(user.profileData ?? {})) {
      tables.zerver_customprofilefieldvalue.push({ id: tables.zerver_customprofilefieldvalue.length + 1, user_profile: user.id, field: Number(fieldId), value, rendered_value: null });
    }
  }
  for (const { userId, row } of store.userTopics.ofRealm(realm.id)) {
    const channel = channels.find((candidate) => candidate.id === row.channelId);
    if (!channel) continue;
    tables.zerver_usertopic.push({ id: tables.zerver_usertopic.length + 1, user_profile: userId, stream: channel.id, recipient: channel.recipientId, topic_name: row.topic, last_updated: row.lastUpdated, visibility_policy: row.policy });
  }

  // Direct-message groups of three or more (Zulip's huddles): one per recipient, with a
  // subscription of each participant.
  const clients = new Map<string, number>();
  const huddles = new Map<number, number>();
  const recipientOf = (message: MessageRecord): number => {
    if (message.channelId !== null) return channels.find((channel) => channel.id === message.channelId)!.recipientId;
    if (message.participants.length <= 2) {
      const other = message.participants.find((id) => id !== message.senderId) ?? message.senderId;
      return personalRecipient.get(other)!;
    }
    if (!huddles.has(message.recipientId)) {
      const id = huddles.size + 1;
      huddles.set(message.recipientId, id);
      tables.zerver_huddle.push({ id, huddle_hash: directMessageGroupHash(message.participants), group_size: message.participants.length, recipient: message.recipientId });
      tables.zerver_recipient.push({ id: message.recipientId, type: RecipientType.directMessageGroup, type_id: id });
      for (const userId of message.participants) subscribe(userId, message.recipientId);
    }
    return message.recipientId;
  };
  const clientOf = (name: string): number => {
    if (!clients.has(name)) {
      clients.set(name, clients.size + 1);
      tables.zerver_client.push({ id: clients.size, name });
    }
    return clients.get(name)!;
  };

  // Every user's message rows, by message.
  const rowsByMessage = new Map<number, ZulipUserMessage[]>();
  let userMessageId = 1;
  for (const user of users) {
    for (const [messageId, flags] of store.userMessages.range(user.id, 0)) {
      const message = store.messageHeader(messageId);
      const rows = rowsByMessage.get(messageId) ?? [];
      rowsByMessage.set(messageId, rows);
      rows.push({ id: userMessageId++, user_profile: user.id, message: messageId, flags_mask: message?.type === 'private' ? flags | IS_PRIVATE_FLAG : flags });
    }
  }
  const exported = new Set(messageIds);
  const messageFiles: ZulipMessageFile[] = [];
  for (let start = 0; start < messages.length; start += MESSAGES_PER_FILE) {
    const batch = messages.slice(start, start + MESSAGES_PER_FILE);
    const rows: ZulipMessage[] = batch.map((message) => ({
      id: message.id,
      sender: message.senderId,
      recipient: recipientOf(message),
      realm: realm.id,
      subject: message.topic,
      content: message.content,
      rendered_content: message.renderedContent,
      rendered_content_version: 1,
      date_sent: message.timestamp,
      last_edit_time: message.edits?.at(-1)?.timestamp ?? null,
      edit_history: editHistory(message),
      sending_client: clientOf(message.client),
      has_attachment: false,
      has_image: message.renderedContent.includes('<img'),
      has_link: message.renderedContent.includes('<a '),
      type: 1,
      is_channel_message: message.channelId !== null,
    }));
    messageFiles.push({ zerver_message: rows, zerver_usermessage: batch.flatMap((message) => rowsByMessage.get(message.id) ?? []) });
  }
  for (const message of messages) {
    for (const reaction of message.reactions ?? []) {
      if (!exported.has(message.id)) continue;
      tables.zerver_reaction.push({ id: tables.zerver_reaction.length + 1, user_profile: reaction.userId, message: message.id, emoji_name: reaction.emojiName, emoji_code: reaction.emojiCode, reaction_type: reaction.reactionType });
    }
  }
  return { tables, messageFiles };
}

/** Writes the realm named by `subdomain` of the data directory (a server may be running on it)
 * into the empty directory `to`, and `to`.tar.gz. */
export async function exportRealm(dataDir: string, subdomain: string, to: string, externalHost: string): Promise<ExportSummary> {
  if (!emptyOrAbsent(to)) throw new ExportError(`${to} is not empty`);
  const tarball = `${to.replace(/\/+$/, '')}.tar.gz`;
  const scratch = mkdtempSync(join(tmpdir(), 'parley-export-'));
  try {
    const env = open({ path: join(dataDir, STORE_FILE), readOnly: true });
    try {
      await env.backup(join(scratch, STORE_FILE), true);
    } finally {
      await env.close();
    }
    const store = new Store(join(scratch, STORE_FILE));
    try {
      const realm = [...store.realms.getRange()].map(({ value }) => value).find((candidate) => candidate.subdomain === subdomain);
      if (!realm) throw new ExportError(`no realm '${subdomain}'`);
      const { tables, messageFiles } = realmTables(store, realm, externalHost);
      mkdirSync(to, { recursive: true });
      writeJson(join(to, 'realm.json'), tables);
      messageFiles.forEach((file, index) => writeJson(join(to, messageFileName(index + 1)), file));
      writeJson(join(to, 'attachment.json'), { zerver_attachment: [] });
      for (const dir of ['uploads', 'avatars', 'emoji', 'realm_icons']) {
        mkdirSync(join(to, dir));
        writeJson(join(to, dir, 'records.json'), []);
      }
      await createTar({ gzip: true, file: tarball, cwd: dirname(to) }, [basename(to)]);
      return {
        realm: realm.subdomain,
        users: tables.zerver_userprofile.length,
        channels: tables.zerver_stream.length,
        messages: messageFiles.reduce((sum, file) => sum + file.zerver_message.length, 0),
        files: messageFiles.length,
        tarball,
      };
    } finally {
      await store.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
