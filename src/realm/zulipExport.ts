// A realm in Zulip's export format (zerver/lib/export.py): realm.json with the realm's tables,
// messages-000001.json… with 1,000 messages each and their UserMessage rows, attachment.json, the
// records.json of uploads/avatars/emoji/realm_icons (empty: files are not carried yet), and a
// .tar.gz of the directory beside it, as Zulip's `manage.py export` writes. The store given is a
// copy of one moment (`manage export`'s compacted copy, or an export's snapshot of the realm's
// rows), so the export is consistent while the server goes on writing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { create as createTar } from 'tar';
import { channelPermissions, type ChannelRecord } from '../channels/records.js';
import { subscriptionSettings } from '../channels/view.js';
import { groupPermissions, systemGroups, type GroupRecord, type GroupSetting, type SystemGroupName } from '../groups/records.js';
import type { MessageRecord } from '../messages/records.js';
import { fakeEmailDomain, type RealmRecord } from '../organization/records.js';
import { realmGroupSettingNames } from '../organization/settings.js';
import { realmPropertyDefaults } from '../organization/settingDefaults.js';
import type { Store } from '../store/store.js';
import { EmailVisibility, type UserRecord } from '../users/records.js';
import {
  channelSettings,
  directMessageGroupHash,
  IS_PRIVATE_FLAG,
  messageFileName,
  systemBots,
  MESSAGES_PER_FILE,
  RecipientType,
  type ZulipMessage,
  type ZulipMessageFile,
  type ZulipNamedUserGroup,
  type ZulipRealmTables,
  type ZulipStream,
  type ZulipUserMessage,
  type ZulipUserProfile,
} from './zulipFormat.js';

export interface ExportSummary {
  realm: string;
  users: number;
  channels: number;
  messages: number;
  files: number;
  tarball: string;
}

/** Which messages an export carries: every one (`manage export`, as Zulip's full export), or those
 * of public channels and those the consenting users received (the API's exports: a public export
 * is one for which nobody consented, a standard one carries the private data of those who did). */
export type ExportScope = { kind: 'full' } | { kind: 'consented'; userIds: ReadonlySet<number> };

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
  for (const [property, column] of channelSettings) {
    const channelId = row[property];
    delete row[property];
    row[column] = channelId === -1 ? null : channelId;
  }
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

const emptyTables = (): ZulipRealmTables => ({
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
  zerver_submessage: [],
  zerver_alertword: [],
  zerver_muteduser: [],
  zerver_usertopic: [],
  zerver_userstatus: [],
  zerver_realmfilter: [],
  zerver_botstoragedata: [],
  zerver_client: [],
});

/** Appends a row with the next ID of its table (Zulip's row IDs of tables Parley has no IDs for). */
function append<T extends { id: number }>(table: T[], row: Omit<T, 'id'>): void {
  table.push({ ...row, id: table.length + 1 } as T);
}

/** One realm of the store in Zulip's tables, and its messages in files of MESSAGES_PER_FILE. */
class RealmExport {
  readonly tables = emptyTables();
  readonly messageFiles: ZulipMessageFile[] = [];
  private readonly users: UserRecord[];
  private readonly userById: Map<number, UserRecord>;
  private readonly channels: Map<number, ChannelRecord>;
  private readonly messages: MessageRecord[];
  private readonly settings: GroupSettings;
  /** Each user's personal recipient (Zulip's, for one-to-one messages). */
  private readonly personalRecipient: Map<number, number>;
  /** Direct-message groups of three or more: Parley's recipient ID → Zulip's huddle ID. */
  private readonly huddles = new Map<number, number>();
  private readonly clients = new Map<string, number>();
  /** When a row Parley keeps no time for happened, as far as the export knows: now. */
  private readonly exportedAt = Math.floor(Date.now() / 1000);

  constructor(
    private readonly store: Store,
    private readonly realm: RealmRecord,
    private readonly externalHost: string,
    scope: ExportScope,
  ) {
    this.users = [...store.users.ofRealm(realm.id)];
    this.userById = new Map(this.users.map((user) => [user.id, user]));
    this.channels = new Map([...store.channels.ofRealm(realm.id)].map((channel) => [channel.id, channel]));
    const messages = this.users.flatMap((user) => [...store.sentBy(user.id)]).sort((a, b) => a - b).map((id) => store.messages.get(id)!);
    this.messages = scope.kind === 'full' ? messages : messages.filter(this.carried(scope.userIds));
    const groups = [...store.groups.ofRealm(realm.id)];
    this.settings = new GroupSettings(this.tables, realm.id, Math.max(0, ...groups.map((group) => group.id)));
    // Channels' and direct-message groups' recipients are Parley's own; personal ones come after.
    const lastRecipientId = Math.max(0, ...[...this.channels.values()].map((channel) => channel.recipientId), ...this.messages.map((message) => message.recipientId));
    this.personalRecipient = new Map(this.users.map((user, index) => [user.id, lastRecipientId + 1 + index]));
    this.tables.zerver_realm.push(realmRow(realm, this.settings));
    this.addUsers();
    this.addChannels();
    this.addGroups(groups);
    this.addProfileFields();
    this.addLinkifiers();
    this.addBotStorage();
    this.addMessages();
  }

  /** Whether a scoped export carries a message: one of a public channel, or one a consenting user
   * received. */
  private carried(consenting: ReadonlySet<number>): (message: MessageRecord) => boolean {
    const received = new Set<number>();
    for (const userId of consenting) for (const [messageId] of this.store.userMessages.range(userId, 0)) received.add(messageId);
    return (message) => (message.channelId !== null && this.channels.get(message.channelId)?.inviteOnly === false) || received.has(message.id);
  }

  private subscribe(userId: number, recipient: number): void {
    append(this.tables.zerver_subscription, {
      user_profile: userId,
      recipient,
      active: true,
      is_user_active: this.userById.get(userId)?.isActive ?? false,
      color: '#c2c2c2',
      is_muted: false,
      pin_to_top: false,
      desktop_notifications: null,
      audible_notifications: null,
      push_notifications: null,
      email_notifications: null,
      wildcard_mentions_notify: null,
    });
  }

  private addUsers(): void {
    const { tables, realm } = this;
    const domain = fakeEmailDomain(realm, this.externalHost);
    for (const user of this.users) {
      const recipient = this.personalRecipient.get(user.id)!;
      tables.zerver_recipient.push({ id: recipient, type: RecipientType.personal, type_id: user.id });
      const systemEmail = systemBots(realm).find(([, id]) => id === user.id)?.[0];
      if (systemEmail !== undefined) {
        tables.zerver_userprofile_crossrealm.push({ id: user.id, email: systemEmail, recipient_id: recipient, date_joined: user.dateCreated });
        continue;
      }
      tables.zerver_userprofile.push(userRow(user, realm, domain, recipient));
      this.subscribe(user.id, recipient);
      for (const word of user.alertWords ?? []) append(tables.zerver_alertword, { user_profile: user.id, realm: realm.id, word });
      for (const muted of user.mutedUsers ?? []) append(tables.zerver_muteduser, { user_profile: user.id, muted_user: muted.id, date_muted: muted.timestamp });
      if (user.status) {
        const emoji = user.status.emoji;
        append(tables.zerver_userstatus, { user_profile: user.id, timestamp: this.exportedAt, client: this.clientId('website'), status_text: user.status.text, emoji_name: emoji?.emojiName ?? '', emoji_code: emoji?.emojiCode ?? '', reaction_type: emoji?.reactionType ?? 'unicode_emoji' });
      }
    }
  }

  private addChannels(): void {
    const { tables, realm } = this;
    for (const channel of this.channels.values()) {
      const row: ZulipStream = {
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
      for (const permission of channelPermissions) row[permission] = this.settings.idOf(channel.permissions[permission]);
      tables.zerver_stream.push(row);
      tables.zerver_recipient.push({ id: channel.recipientId, type: RecipientType.stream, type_id: channel.id });
    }
    for (const subscription of this.store.subscriptions.ofRealm(realm.id)) {
      append(tables.zerver_subscription, {
        user_profile: subscription.userId,
        recipient: this.channels.get(subscription.channelId)!.recipientId,
        active: subscription.active,
        is_user_active: this.userById.get(subscription.userId)?.isActive ?? false,
        ...subscriptionSettings(subscription),
      });
    }
    for (const stream of realm.defaultChannelIds) append(tables.zerver_defaultstream, { realm: realm.id, stream });
    for (const { userId, row } of this.store.userTopics.ofRealm(realm.id)) {
      const channel = this.channels.get(row.channelId);
      if (channel) append(tables.zerver_usertopic, { user_profile: userId, stream: channel.id, recipient: channel.recipientId, topic_name: row.topic, last_updated: row.lastUpdated, visibility_policy: row.policy });
    }
  }

  private addGroups(groups: GroupRecord[]): void {
    const { tables, realm } = this;
    for (const group of groups) {
      tables.zerver_usergroup.push({ id: group.id, realm: realm.id });
      const row: ZulipNamedUserGroup = {
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
      for (const permission of groupPermissions) row[permission] = this.settings.idOf(group.permissions[permission]);
      tables.zerver_namedusergroup.push(row);
      // System groups' members follow roles (Zulip stores them as memberships).
      const directRoles: readonly number[] = group.isSystemGroup ? (systemGroups[group.name as SystemGroupName]?.directRoles ?? []) : [];
      const members = group.isSystemGroup ? this.users.filter((user) => directRoles.includes(user.role)).map((user) => user.id) : group.members;
      for (const userId of members) this.settings.member(group.id, userId);
      for (const subgroupId of group.subgroups) this.settings.subgroup(group.id, subgroupId);
    }
  }

  private addProfileFields(): void {
    const { tables, realm } = this;
    for (const field of this.store.profileFields.ofRealm(realm.id)) {
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
    for (const user of this.users) {
      for (const [fieldId, value] of Object.entries(user.profileData ?? {})) append(tables.zerver_customprofilefieldvalue, { user_profile: user.id, field: Number(fieldId), value, rendered_value: null });
    }
  }

  private addLinkifiers(): void {
    for (const linkifier of this.store.linkifiers.ofRealm(this.realm.id)) {
      this.tables.zerver_realmfilter.push({
        id: linkifier.id,
        realm: this.realm.id,
        pattern: linkifier.pattern,
        url_template: linkifier.urlTemplate,
        reverse_template: linkifier.reverseTemplate,
        alternative_url_templates: linkifier.alternativeUrlTemplates,
        order: linkifier.order,
      });
    }
  }

  private addBotStorage(): void {
    for (const { userId, row } of this.store.botStorage.ofRealm(this.realm.id)) append(this.tables.zerver_botstoragedata, { bot_profile: userId, key: row.key, value: row.value });
  }

  private clientId(name: string): number {
    if (!this.clients.has(name)) {
      this.clients.set(name, this.clients.size + 1);
      this.tables.zerver_client.push({ id: this.clients.size, name });
    }
    return this.clients.get(name)!;
  }

  /** A message's Zulip recipient: its channel's, the other participant's personal one (or the
   * sender's own, to oneself), or its group's, added with a subscription of each participant. */
  private recipientOf(message: MessageRecord): number {
    if (message.channelId !== null) return this.channels.get(message.channelId)!.recipientId;
    if (message.participants.length <= 2) return this.personalRecipient.get(message.participants.find((id) => id !== message.senderId) ?? message.senderId)!;
    if (!this.huddles.has(message.recipientId)) {
      const id = this.huddles.size + 1;
      this.huddles.set(message.recipientId, id);
      this.tables.zerver_huddle.push({ id, huddle_hash: directMessageGroupHash(message.participants), group_size: message.participants.length, recipient: message.recipientId });
      this.tables.zerver_recipient.push({ id: message.recipientId, type: RecipientType.directMessageGroup, type_id: id });
      for (const userId of message.participants) this.subscribe(userId, message.recipientId);
    }
    return message.recipientId;
  }

  private messageRow(message: MessageRecord): ZulipMessage {
    return {
      id: message.id,
      sender: message.senderId,
      recipient: this.recipientOf(message),
      realm: this.realm.id,
      subject: message.topic,
      content: message.content,
      rendered_content: message.renderedContent,
      rendered_content_version: 1,
      date_sent: message.timestamp,
      last_edit_time: message.edits?.at(-1)?.timestamp ?? null,
      edit_history: editHistory(message),
      sending_client: this.clientId(message.client),
      has_attachment: false,
      has_image: message.renderedContent.includes('<img'),
      has_link: message.renderedContent.includes('<a '),
      type: 1,
      is_channel_message: message.channelId !== null,
    };
  }

  private addMessages(): void {
    // Every user's message rows, by message.
    const rowsByMessage = new Map<number, ZulipUserMessage[]>();
    const carried = new Set(this.messages.map((message) => message.id));
    const direct = new Set(this.messages.filter((message) => message.type === 'private').map((message) => message.id));
    let userMessageId = 1;
    for (const user of this.users) {
      for (const [messageId, flags] of this.store.userMessages.range(user.id, 0)) {
        if (!carried.has(messageId)) continue;
        const rows = rowsByMessage.get(messageId) ?? [];
        rowsByMessage.set(messageId, rows);
        rows.push({ id: userMessageId++, user_profile: user.id, message: messageId, flags_mask: direct.has(messageId) ? flags | IS_PRIVATE_FLAG : flags });
      }
    }
    for (let start = 0; start < this.messages.length; start += MESSAGES_PER_FILE) {
      const batch = this.messages.slice(start, start + MESSAGES_PER_FILE);
      this.messageFiles.push({ zerver_message: batch.map((message) => this.messageRow(message)), zerver_usermessage: batch.flatMap((message) => rowsByMessage.get(message.id) ?? []) });
    }
    for (const message of this.messages) {
      for (const reaction of message.reactions ?? []) {
        append(this.tables.zerver_reaction, { user_profile: reaction.userId, message: message.id, emoji_name: reaction.emojiName, emoji_code: reaction.emojiCode, reaction_type: reaction.reactionType });
      }
      for (const submessage of message.submessages ?? []) {
        append(this.tables.zerver_submessage, { message: message.id, sender: submessage.senderId, msg_type: submessage.msgType, content: submessage.content });
      }
    }
  }
}

/** Writes the realm of `store` into the empty directory `to`, and `to`.tar.gz. */
export async function writeZulipExport(store: Store, realm: RealmRecord, to: string, externalHost: string, scope: ExportScope): Promise<ExportSummary> {
  const tarball = `${to.replace(/\/+$/, '')}.tar.gz`;
  const { tables, messageFiles } = new RealmExport(store, realm, externalHost, scope);
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
}
