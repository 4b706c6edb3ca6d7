// Archiving (DELETE /streams/{id}) and updating a channel (spec endpoint 2), through the channel
// lifecycle machine. Every parameter is checked before anything changes.
import { canSeeChannel, channelObservers, hasPermission } from '../../channels/access.js';
import type { ChannelPermission, ChannelRecord, TopicsPolicy } from '../../channels/records.js';
import { errors } from '../../errors.js';
import { satisfies } from '../../groups/membership.js';
import { channelLifecycle, type ChannelEvent } from '../../machines/channel.js';
import { move } from '../../machines/lifecycle.js';
import { renderMarkdown } from '../../markdown/index.js';
import { isAdmin, Role, type UserRecord } from '../../users/records.js';
import { writeCommand, type CommandContext } from '../context.js';
import { channelViewOf, checkChannelName, checkDescription } from './channels.js';
import { changedSetting, type SettingChange } from './groupSettingChange.js';
import { usableFolder } from './folders.js';

export interface ChannelUpdate {
  channelId: number;
  description?: string;
  newName?: string;
  isPrivate?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isDefaultStream?: boolean;
  /** Present when given: null inherits the organization's setting, -1 keeps forever. */
  retention?: { days: number | null };
  isArchived?: boolean;
  /** undefined: not given; null: out of its folder. */
  folderId?: number | null;
  topicsPolicy?: TopicsPolicy;
  permissions: Partial<Record<ChannelPermission, SettingChange>>;
}

function visibleChannel(ctx: CommandContext, channelId: number, user: UserRecord): ChannelRecord {
  const channel = ctx.state.channels.get(channelId);
  if (!channel || !canSeeChannel(ctx.state, channel, user)) throw errors.badRequest('Invalid channel ID');
  return channel;
}

const mayAdminister = (ctx: CommandContext, channel: ChannelRecord, user: UserRecord): boolean =>
  isAdmin(user) || hasPermission(ctx.state, channel, user, 'can_administer_channel_group');


function setDefault(ctx: CommandContext, channelId: number, isDefault: boolean): void {
  const others = ctx.state.realm.defaultChannelIds.filter((id) => id !== channelId);
  ctx.saveRealm({ defaultChannelIds: isDefault ? [...others, channelId] : others });
  const everyone = ctx.activeUserIds();
  ctx.emit({ type: 'default_streams', default_streams: ctx.state.realm.defaultChannelIds }, everyone);
}

/** Moves a channel through its lifecycle, or throws the API's error for the machine's refusal. */
function changeArchived(channel: ChannelRecord, event: ChannelEvent): void {
  const outcome = move(channelLifecycle, channel.isArchived ? 'archived' : 'active', event);
  if (!('refused' in outcome)) return;
  if (outcome.refused !== 'state') throw errors.adminRequired();
  throw errors.badRequest(event.type === 'channel.archive' ? 'Channel is already archived.' : 'Channel is not archived.');
}

export const channelUpdateCommands = {
  /** POST and DELETE /default_streams. */
  'channels.setDefault': writeCommand((ctx, input: { channelId: number; isDefault: boolean }) => {
    if (!isAdmin(ctx.user)) throw errors.adminRequired();
    const channel = visibleChannel(ctx, input.channelId, ctx.user);
    if (input.isDefault && channel.inviteOnly) throw errors.badRequest('Private channels cannot be made default.');
    if (input.isDefault && channel.isArchived) throw errors.badRequest('Archived channels cannot be made default.');
    if (input.isDefault === ctx.state.realm.defaultChannelIds.includes(channel.id)) {
      throw errors.badRequest(input.isDefault ? 'Channel is already a default channel.' : 'Channel is not a default channel.');
    }
    setDefault(ctx, channel.id, input.isDefault);
    return {};
  }),

  'channels.archive': writeCommand((ctx, input: { channelId: number }) => {
    const user = ctx.user;
    const channel = visibleChannel(ctx, input.channelId, user);
    changeArchived(channel, { type: 'channel.archive', mayAdminister: mayAdminister(ctx, channel, user) });
    ctx.save('channel', { ...channel, isArchived: true });
    if (ctx.state.realm.defaultChannelIds.includes(channel.id)) setDefault(ctx, channel.id, false);
    const observers = channelObservers(ctx.state, channel).map((observer) => observer.id);
    announceArchived(ctx, ctx.state.channels.get(channel.id)!, observers);
    return {};
  }),

  'channels.update': writeCommand((ctx, input: ChannelUpdate) => {
    const user = ctx.user;
    const before = visibleChannel(ctx, input.channelId, user);
    const administers = mayAdminister(ctx, before, user);
    if (!administers) throw errors.adminRequired();
    const { channel, changes } = checkChannelUpdate(ctx, user, before, input, administers);
    ctx.save('channel', channel);
    if (input.isDefaultStream !== undefined && input.isDefaultStream !== ctx.state.realm.defaultChannelIds.includes(channel.id)) {
      setDefault(ctx, channel.id, input.isDefaultStream);
    }
    const told = new Set([...channelObservers(ctx.state, before), ...channelObservers(ctx.state, channel)].map((observer) => observer.id));
    for (const { property, value, extras } of changes) {
      if (property === 'is_archived') announceArchived(ctx, channel, told);
      else ctx.emit({ type: 'stream', op: 'update', stream_id: channel.id, name: channel.name, property, value, ...extras }, told);
    }
    return {};
  }),
};

/** Archiving or unarchiving as each client understands it: an is_archived update for those that
 * declared archived_channels, the channel's deletion or creation for older ones (Zulip's). */
function announceArchived(ctx: CommandContext, channel: ChannelRecord, userIds: Iterable<number>): void {
  const told = [...userIds];
  ctx.emit({ type: 'stream', op: 'update', stream_id: channel.id, name: channel.name, property: 'is_archived', value: channel.isArchived }, told, { capability: { name: 'archived_channels', declared: true } });
  const older = channel.isArchived ? { type: 'stream' as const, op: 'delete' as const, streams: [{ stream_id: channel.id }], stream_ids: [channel.id] } : { type: 'stream' as const, op: 'create' as const, streams: [channelViewOf(ctx.state, channel)] };
  ctx.emit(older, told, { capability: { name: 'archived_channels', declared: false } });
}

/** One announced change of a channel: a `stream` update event's property, value and extras. */
interface ChannelChange {
  property: string;
  value: unknown;
  extras?: { rendered_description?: string; history_public_to_subscribers?: boolean; is_web_public?: boolean };
}

type Aspect = (ctx: CommandContext, user: UserRecord, channel: ChannelRecord, input: ChannelUpdate, before: ChannelRecord) => ChannelChange[];

const archived: Aspect = (_ctx, _user, channel, input) => {
  if (input.isArchived === undefined) return [];
  if (input.isArchived) throw errors.badRequest('Channels are archived with DELETE /streams/{stream_id}; is_archived only unarchives.');
  channel.isArchived = false;
  return [{ property: 'is_archived', value: false }];
};

const name: Aspect = (ctx, _user, channel, input) => {
  if (input.newName === undefined) return [];
  const newName = checkChannelName(input.newName);
  const holder = ctx.state.channelByName(newName);
  if (holder && holder.id !== channel.id) throw errors.badRequest(`Channel name '${newName}' is already taken.`);
  const changed = newName !== channel.name;
  channel.name = newName;
  return changed ? [{ property: 'name', value: newName }] : [];
};

const description: Aspect = (_ctx, _user, channel, input) => {
  if (input.description === undefined) return [];
  channel.description = checkDescription(input.description);
  channel.renderedDescription = renderMarkdown(channel.description);
  return [{ property: 'description', value: channel.description, extras: { rendered_description: channel.renderedDescription } }];
};

const privacy: Aspect = (ctx, user, channel, input) => {
  if (input.isPrivate === undefined && input.isWebPublic === undefined && input.historyPublicToSubscribers === undefined) return [];
  const inviteOnly = input.isPrivate ?? (input.isWebPublic ? false : channel.inviteOnly);
  const isWebPublic = inviteOnly ? false : (input.isWebPublic ?? channel.isWebPublic);
  if (input.isWebPublic && !(ctx.config.webPublicStreamsEnabled && ctx.state.realm.enableSpectatorAccess)) throw errors.badRequest('Web-public channels are not enabled.');
  if (input.isWebPublic && !satisfies(ctx.state, ctx.state.realm.permissions.can_create_web_public_channel_group, user)) throw errors.insufficientRights();
  // History hidden from new subscribers only makes sense for a private channel.
  if (input.historyPublicToSubscribers === false && (!inviteOnly || isWebPublic)) throw errors.badRequest('Invalid parameters');
  const history = !inviteOnly || (input.historyPublicToSubscribers ?? channel.historyPublicToSubscribers);
  const changes: ChannelChange[] = [];
  if (inviteOnly !== channel.inviteOnly || isWebPublic !== channel.isWebPublic || history !== channel.historyPublicToSubscribers) {
    const extras = { history_public_to_subscribers: history, is_web_public: isWebPublic };
    changes.push({ property: 'invite_only', value: inviteOnly, extras });
    if (isWebPublic !== channel.isWebPublic) changes.push({ property: 'is_web_public', value: isWebPublic, extras });
    if (history !== channel.historyPublicToSubscribers) changes.push({ property: 'history_public_to_subscribers', value: history, extras });
  }
  Object.assign(channel, { inviteOnly, isWebPublic, historyPublicToSubscribers: history });
  return changes;
};

const retention: Aspect = (_ctx, user, channel, input) => {
  if (input.retention === undefined) return [];
  if (user.role !== Role.owner) throw errors.ownerRequired();
  channel.messageRetentionDays = input.retention.days;
  return [{ property: 'message_retention_days', value: input.retention.days }];
};

const folder: Aspect = (ctx, _user, channel, input) => {
  if (input.folderId === undefined) return [];
  channel.folderId = input.folderId === null ? null : usableFolder(ctx, input.folderId).id;
  return [{ property: 'folder_id', value: channel.folderId }];
};

const topicsPolicy: Aspect = (ctx, _user, channel, input) => {
  if (input.topicsPolicy === undefined) return [];
  if (input.topicsPolicy === 'empty_topic_only' && !onlyEmptyTopic(ctx, channel.id)) {
    throw errors.badRequest('To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.');
  }
  channel.topicsPolicy = input.topicsPolicy;
  return [{ property: 'topics_policy', value: input.topicsPolicy }];
};

const permissions: Aspect = (ctx, user, channel, input, before) => {
  const updates = Object.entries(input.permissions) as [ChannelPermission, SettingChange][];
  // Spec endpoint 2: a private channel's permissions change only by someone subscribed to it
  // (an organization administrator's implicit channel rights do not count here).
  if (updates.length > 0 && before.inviteOnly && !ctx.state.isSubscribed(before.id, user.id)) {
    throw errors.badRequest('You must be subscribed to this private channel to change its permissions.');
  }
  return updates.map(([permission, update]) => {
    channel.permissions = { ...channel.permissions, [permission]: changedSetting(ctx.state, channel.permissions[permission], update) };
    return { property: permission, value: update.new };
  });
};

/** Checks every parameter of an update and returns the channel as it will be with the changes to
 * announce, in Zulip's order; throws at the first refusal. Nothing is written. */
function checkChannelUpdate(ctx: CommandContext, user: UserRecord, before: ChannelRecord, input: ChannelUpdate, administers: boolean) {
  const channel: ChannelRecord = { ...before };
  if (input.isArchived === false) changeArchived(channel, { type: 'channel.unarchive', mayAdminister: administers });
  const changes = [archived, name, description, privacy, retention, folder, topicsPolicy, permissions].flatMap((aspect) => aspect(ctx, user, channel, input, before));
  if (input.isDefaultStream && channel.inviteOnly) throw errors.badRequest('A default channel cannot be private.');
  return { channel, changes };
}

function onlyEmptyTopic(ctx: CommandContext, channelId: number): boolean {
  for (const [, topic] of ctx.store.channelRange(channelId, 0)) {
    if (topic !== '') return false;
  }
  return true;
}
