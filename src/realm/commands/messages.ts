// Message commands: sending to a channel or to users, and reading messages.
import { normalizeTopic, shownTopic } from '../../messages/emptyTopic.js';
import { canReadChannel, hasPermission } from '../../channels/access.js';
import type { ChannelRecord } from '../../channels/records.js';
import { ApiError, errors } from '../../errors.js';
import type { Emitted, LocalEcho } from '../../events/types.js';
import { withAlertWordFlag } from '../../messages/alertWords.js';
import { withMentionFlags } from '../../messages/mentions.js';
import { matchesNarrow, narrowSearch, resolveNarrow, type RawTerm } from '../../messages/narrow.js';
import { searchHighlights, type SearchQuery } from '../../messages/search.js';
import { contentHas, Flag, flagNames, HISTORICAL_FLAGS, type MessageRecord, type RecipientFlags } from '../../messages/records.js';
import { renderAs, renderFor, type RenderedMessage } from '../../messages/render.js';
import { messageView, withUnknownSender, type MessageViewOptions } from '../../messages/view.js';
import { avatarUrlFor } from '../../users/view.js';
import { messageWindow, type Anchor, type ChannelOf } from '../../store/window.js';
import { hasMuted, Role, type UserRecord } from '../../users/records.js';
import { readCommand, type CommandContext, type ReadContext } from '../context.js';
import { JsonArray, membersJson } from '../jsonFields.js';
import { accessibleMessage, messageAccess, narrowLookup } from './messageAccess.js';
import { setFirstMessageId } from './firstMessage.js';
import { limits } from './limits.js';
import { claimAttachments } from './attachments.js';
import { notificationsAtMost, queueNotifications } from './notifications.js';
import { queueServiceDeliveries } from './serviceTriggers.js';
import { attachWidget } from './submessages.js';
import { accessibleUsers, canAccessAll, restrictedAmong, sees, withAccessChanges } from './userAccess.js';
import type { Prerendered } from '../../messages/render.js';

/** Zulip's cap on messages per fetch. */
export const MAX_MESSAGES_PER_FETCH = 5000;

export interface SendInput {
  type: 'stream' | 'private';
  to: (string | number)[];
  topic: string | null;
  content: string;
  readBySender: boolean;
  client: string;
  /** Sent by the server itself (the notification bot's notices): the sender's right to post is
   * not checked. */
  system?: boolean;
  /** No push or e-mail notification (Zulip's disable_external_notifications: Welcome Bot's
   * messages, meant to be read in the app). */
  quiet?: boolean;
  /** The sender's queue and the local echo's ID, when the client named them. */
  localEcho?: LocalEcho;
  /** The content as a render worker rendered it, used if the realm's context has not moved since. */
  prerendered?: Prerendered;
}

function truncate(text: string, limit: number, marker: string): string {
  // No longer in UTF-16 units than the limit: no longer in code points either (no array of them).
  if (text.length <= limit) return text;
  const points = [...text];
  return points.length <= limit ? text : points.slice(0, limit - [...marker].length).join('') + marker;
}

function targetChannel(ctx: CommandContext, to: (string | number)[]): ChannelRecord {
  const [target] = to;
  if (to.length !== 1 || target === undefined) throw errors.badRequest('Cannot send to multiple channels');
  const channel = typeof target === 'number' ? ctx.state.channels.get(target) : ctx.state.channelByName(target);
  if (channel) return channel;
  if (typeof target === 'number') throw errors.streamDoesNotExist(target);
  throw new ApiError(400, 'STREAM_DOES_NOT_EXIST', `Channel '${target}' does not exist`, { stream: target });
}

function checkTopic(ctx: CommandContext, channel: ChannelRecord, topic: string): void {
  const policy = channel.topicsPolicy === 'inherit' ? ctx.state.realm.topicsPolicy : channel.topicsPolicy;
  if (topic === '' && policy === 'disable_empty_topic') throw errors.badRequest('Sending messages to the general chat is not allowed in this channel.');
  if (topic !== '' && policy === 'empty_topic_only') throw errors.badRequest('Only the general chat topic is allowed in this channel.');
}

export function checkMaySend(ctx: ReadContext, channel: ChannelRecord, sender: UserRecord): void {
  if (channel.isArchived) throw errors.badRequest(`Not authorized to send to channel '${channel.name}'`);
  // A bot may post wherever its owner is subscribed (Zulip's access_stream_for_send_message).
  const ownerSubscribed = sender.isBot && sender.botOwnerId !== null && ctx.state.isSubscribed(channel.id, sender.botOwnerId);
  const mayRead = ownerSubscribed || (channel.inviteOnly || sender.role === Role.guest ? ctx.state.isSubscribed(channel.id, sender.id) : canReadChannel(ctx.state, channel, sender));
  if (!mayRead || !hasPermission(ctx.state, channel, sender, 'can_send_message_group')) {
    throw errors.badRequest(`You do not have permission to post in this channel.`);
  }
}

function directRecipients(ctx: CommandContext, to: (string | number)[]): UserRecord[] {
  return to.map((target) => {
    const user = typeof target === 'number' ? ctx.state.users.get(target) : ctx.state.userByApiEmail(target, ctx.fakeEmailDomain);
    if (!user) throw errors.badRequest(typeof target === 'number' ? `Invalid user ID ${target}` : `Invalid email '${target}'`);
    if (!user.isActive) throw errors.badRequest(`'${typeof target === 'number' ? user.email : target}' is no longer using Zulip.`);
    return user;
  });
}

/** The recipient ID of a direct-message group, allocated on first use. */
export function dmRecipientId(ctx: CommandContext, participants: number[]): number {
  const key = ctx.store.dmRecipientKey(ctx.state.realm.id, participants);
  const known = ctx.store.meta.get(key);
  if (known !== undefined) return known;
  const id = ctx.store.nextId('recipient');
  ctx.store.meta.put(key, id);
  return id;
}

/** Announces a new message: one event per distinct flag set, in the variant of queues with
 * apply_markdown and without client_gravatar (messageVariants.ts makes the others), its sender an
 * "Unknown user" in those of restricted guests who may not see them. A public channel's message
 * also reaches, without flags, the queues registered with all_public_streams of those who did not
 * receive it and may read the channel (Zulip's). */
function emitMessage(ctx: CommandContext, message: MessageRecord, recipients: RecipientFlags, localEcho: LocalEcho | undefined): void {
  const byFlags = new Map<number, number[]>();
  recipients.userIds.forEach((userId, index) => {
    const flags = recipients.flags[index]!;
    const users = byFlags.get(flags);
    if (users) users.push(userId);
    else byFlags.set(flags, [userId]);
  });
  // The empty topic as it is: queues of clients that do not take it rewrite it at delivery.
  const view = messageView(ctx.state, message, ctx.fakeEmailDomain, { applyMarkdown: true, clientGravatar: false, allowEmptyTopicName: true });
  const sender = ctx.state.users.get(message.senderId)!;
  const gravatarAvatar = avatarUrlFor(sender, true, true);
  // Restricted guests among the recipients who may not see the sender: only when a member writes
  // to a channel they are not in (a direct message's recipients see its sender; a subscriber's
  // fellow subscribers see them), and none where guests see everyone.
  const hideable = !sender.isBot && message.channelId !== null && !ctx.state.isSubscribed(message.channelId, sender.id);
  const unseeing = new Set(hideable ? restrictedAmong(ctx, recipients.userIds).filter((guest) => !canAccessAll(ctx, guest, [sender])).map((guest) => guest.id) : []);
  const hidden = unseeing.size > 0 ? withUnknownSender(view, ctx.fakeEmailDomain) : view;
  const emitGroup = (flags: number, userIds: number[], extra: Pick<Emitted, 'allPublicStreamsOnly' | 'localEcho'>) => {
    const seeing = unseeing.size > 0 ? userIds.filter((id) => !unseeing.has(id)) : userIds;
    if (seeing.length > 0) ctx.emit({ type: 'message', message: view, flags: flagNames(flags) }, seeing, { message: { record: message, flags, gravatarAvatar }, ...extra });
    if (seeing.length === userIds.length) return;
    // Every variant shows the placeholder's avatar: client_gravatar's too.
    ctx.emit({ type: 'message', message: hidden, flags: flagNames(flags) }, userIds.filter((id) => unseeing.has(id)), { message: { record: message, flags, gravatarAvatar: hidden.avatar_url }, ...extra });
  };
  // The sender's queues are among the recipients' (one's own message is always delivered).
  for (const [flags, userIds] of byFlags) emitGroup(flags, userIds, localEcho && userIds.includes(message.senderId) ? { localEcho } : {});
  const channel = message.channelId === null ? undefined : ctx.state.channels.get(message.channelId);
  if (channel && !channel.inviteOnly) {
    // Those holding such a queue, on whichever node (a cluster's nodes tell the realm's owner).
    const holders = [...ctx.holders.allPublicStreamsUsers(ctx.state.realm.id)];
    const received = new Set(holders.length > 0 ? recipients.userIds : []);
    const readers = holders.filter((id) => {
      const user = ctx.state.users.get(id);
      return !received.has(id) && user !== undefined && canReadChannel(ctx.state, channel, user);
    });
    if (readers.length > 0) emitGroup(0, readers, { allPublicStreamsOnly: true });
  }
}

export interface WindowInput {
  anchor: Anchor;
  numBefore: number;
  numAfter: number;
  includeAnchor: boolean;
  narrow: RawTerm[];
}

/** The window of a narrow as the viewer may read it: the one definition GET /messages and the
 * flag updates by narrow share. */
/** The channel of a conversation, as windows and their entries ask it. */
export const channelsOf = (ctx: ReadContext): ChannelOf => (recipientId) => ctx.state.channelByRecipient(recipientId)?.id;

export function narrowWindow(ctx: ReadContext, viewer: UserRecord, input: WindowInput) {
  const terms = resolveNarrow(ctx.state, viewer, input.narrow, ctx.fakeEmailDomain, narrowLookup(ctx, viewer));
  const channelTerm = terms.find((term) => term.op === 'channel' && !term.negated);
  const channel = channelTerm?.op === 'channel' ? ctx.state.channels.get(channelTerm.channelId) : undefined;
  const window = messageWindow(ctx.store, {
    realmId: ctx.state.realm.id,
    userId: viewer.id,
    terms,
    anchor: input.anchor,
    numBefore: input.numBefore,
    numAfter: input.numAfter,
    includeAnchor: input.includeAnchor,
    historyChannel: channel !== undefined && channel.historyPublicToSubscribers && canReadChannel(ctx.state, channel, viewer) ? channel : undefined,
    channelOf: channelsOf(ctx),
  });
  return { ...window, search: narrowSearch(terms) };
}

/** A message that passed every check of sending, not yet stored: what scheduling keeps and
 * delivery sends. */
export interface PreparedMessage {
  type: 'stream' | 'private';
  channel: ChannelRecord | undefined;
  topic: string;
  /** Direct messages: every participant's user ID, sorted (sender included). */
  participants: number[];
  content: string;
  rendered: RenderedMessage;
  /** The rendering's words for the search index, when found where it was made (a prerendering). */
  contentTerms?: readonly string[];
}

/** Zulip's normalize_body, for a new message and an edit alike: not empty, no NUL, and cut at the
 * length limit with a note saying so. */
export function checkContent(content: string): string {
  if (content.trim() === '') throw errors.badRequest('Message must not be empty');
  if (content.includes('\u0000')) throw errors.badRequest('Message must not contain null bytes');
  return truncate(content, limits.max_message_length, '\n[message truncated]');
}

/** Checks a message `sender` may send now, rendering it; throws the API error of the first rule it
 * breaks and writes nothing. */
export function prepareMessage(ctx: CommandContext, sender: UserRecord, input: Pick<SendInput, 'type' | 'to' | 'topic' | 'content' | 'system' | 'prerendered'>): PreparedMessage {
  const content = checkContent(input.content);
  let channel: ChannelRecord | undefined;
  let topic = '';
  let participants: number[] = [];
  if (input.type === 'stream') {
    channel = targetChannel(ctx, input.to);
    if (input.topic === null) throw errors.badRequest('Missing topic');
    if (input.topic.includes('\u0000')) throw errors.badRequest('Topic must not contain null bytes');
    topic = truncate(normalizeTopic(input.topic), limits.max_topic_length, '...');
    if (!input.system) checkMaySend(ctx, channel, sender);
    checkTopic(ctx, channel, topic);
  } else {
    const users = directRecipients(ctx, input.to);
    if (!canAccessAll(ctx, sender, users)) throw errors.badRequest('You do not have permission to access some of the recipients.');
    participants = [...new Set([sender.id, ...users.map((user) => user.id)])].sort((a, b) => a - b);
  }
  const { rendered, contentTerms } = renderFor(ctx.state, ctx.config, sender, content, input.prerendered);
  return { type: input.type, channel, topic, participants, content, rendered, ...(contentTerms && { contentTerms }) };
}

/** Takes, before the write's first change (a send checks first), every ID that `messages` messages
 * like the prepared one may take (a write that also stores an answer to it takes two): a message,
 * a direct-message group's recipient, a widget, its notifications and its service deliveries (which
 * share the notifications' counter; one per bot it mentions or is sent to at most). */
function ensureIds(ctx: CommandContext, { channel, participants, rendered }: PreparedMessage, messages: number): void {
  const recipients = channel ? ctx.state.subscriberIds(channel.id).length : participants.length;
  const deliveries = channel ? rendered.mentions.userIds.size : participants.length;
  ctx.store.ensureIds({ message: messages, recipient: messages, submessage: messages, notification: messages * (notificationsAtMost(ctx, recipients) + deliveries) });
}

/** Stores a prepared message with every recipient's flags and announces it. A first direct
 * message lets a guest in it see the others (as Zulip's, before the message's event). */
export function storeMessage(ctx: CommandContext, sender: UserRecord, prepared: PreparedMessage, options: Pick<SendInput, 'readBySender' | 'client' | 'localEcho' | 'quiet'>, { messages = 1 } = {}): MessageRecord {
  ensureIds(ctx, prepared, messages);
  const guests = prepared.channel ? [] : restrictedAmong(ctx, prepared.participants);
  return withAccessChanges(ctx, guests, () => writeMessage(ctx, sender, prepared, options));
}

function writeMessage(ctx: CommandContext, sender: UserRecord, prepared: PreparedMessage, options: Pick<SendInput, 'readBySender' | 'client' | 'localEcho' | 'quiet'>): MessageRecord {
  const { channel, topic, participants, content } = prepared;
  const recipients = channel ? ctx.state.subscriberIds(channel.id) : participants;
  const message: MessageRecord = {
    id: ctx.store.nextId('message'),
    realmId: ctx.state.realm.id,
    senderId: sender.id,
    recipientId: channel ? channel.recipientId : dmRecipientId(ctx, participants),
    type: prepared.type,
    channelId: channel?.id ?? null,
    topic,
    participants,
    content,
    renderedContent: prepared.rendered.html,
    // Fields written one by one: every new record has one shape.
    has: contentHas(prepared.rendered.html),
    timestamp: ctx.now,
    client: options.client,
  };
  attachWidget(ctx, message);
  const { mentions } = prepared.rendered;
  const flagsOf: number[] = [];
  for (const userId of recipients) {
    const user = ctx.state.users.get(userId);
    // Read from the start: one's own message (if the client says so), and a muted sender's.
    const read = (userId === sender.id && options.readBySender) || hasMuted(user, sender.id);
    const base = withMentionFlags(ctx.state, read ? Flag.read : 0, mentions, userId, channel !== undefined, user);
    const flags = userId === sender.id ? base : withAlertWordFlag(base, user?.alertWords, content);
    flagsOf.push(flags);
  }
  ctx.store.userMessages.appendMessage(message.recipientId, message.id, recipients, flagsOf);
  const received: RecipientFlags = { userIds: recipients, flags: flagsOf };
  ctx.saveMessage(message, undefined, prepared.contentTerms);
  claimAttachments(ctx, sender, message);
  if (channel) {
    ctx.store.indexInChannel(channel.id, message.id, topic);
    if (channel.firstMessageId === null) setFirstMessageId(ctx, channel, message.id);
  }
  emitMessage(ctx, message, received, options.localEcho);
  if (!options.quiet) queueNotifications(ctx, message, received);
  queueServiceDeliveries(ctx, message, prepared.rendered.mentions.userIds);
  return message;
}

/** Sends unless a rule of sending refuses it, answering the message or undefined: for what the
 * server posts on its own (bots' replies, notices) inside a write a refusal must not undo. Every
 * check comes before the first write, so a refusal has written nothing. */
export function sendIfAccepted(ctx: CommandContext, sender: UserRecord, input: SendInput): MessageRecord | undefined {
  let prepared: PreparedMessage;
  try {
    prepared = prepareMessage(ctx, sender, input);
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
  return storeMessage(ctx, sender, prepared, input);
}

/** Sends a message as `sender` (a user or the notification bot); call inside a write command. */
export const sendMessage = (ctx: CommandContext, sender: UserRecord, input: SendInput): MessageRecord => storeMessage(ctx, sender, prepareMessage(ctx, sender, input), input);

export const messageCommands = {
  'messages.window': readCommand((ctx, input: WindowInput & { view: MessageViewOptions }) => {
    const viewer = ctx.user;
    checkFetchSize(input.numBefore + input.numAfter);
    const window = narrowWindow(ctx, viewer, input);
    const seen = accessibleUsers(ctx, viewer);
    return {
      anchor: window.anchor,
      found_anchor: window.foundAnchor,
      found_oldest: window.foundOldest,
      found_newest: window.foundNewest,
      history_limited: false,
      messages: new JsonArray<FetchedMessage>(window.entries.map((entry) => fetchedMessage(ctx, entry, input.view, window.search, seen))),
    };
  }),

  /** GET /messages with message_ids: those of the messages the user may read (and that match the
   * narrow, if one is given), oldest first; no window, so nothing was "found" (Zulip's). */
  'messages.byIds': readCommand((ctx, input: { messageIds: number[]; narrow: RawTerm[]; view: MessageViewOptions }) => {
    const viewer = ctx.user;
    checkFetchSize(input.messageIds.length);
    const terms = resolveNarrow(ctx.state, viewer, input.narrow, ctx.fakeEmailDomain, narrowLookup(ctx, viewer));
    const search = narrowSearch(terms);
    const seen = accessibleUsers(ctx, viewer);
    const messages: string[] = [];
    for (const id of [...new Set(input.messageIds)].sort((a, b) => a - b)) {
      const message = ctx.store.messages.get(id);
      const access = message?.realmId === ctx.state.realm.id ? messageAccess(ctx, viewer, message) : null;
      if (!message || !access) continue;
      const flags = access.flags ?? HISTORICAL_FLAGS;
      if (matchesNarrow(terms, message, flags)) messages.push(fetchedMessage(ctx, { id, message, flags }, input.view, search, seen));
    }
    return { messages: new JsonArray<FetchedMessage>(messages), history_limited: false, found_anchor: false, found_oldest: false, found_newest: false };
  }),

  /** POST /messages/render: the HTML the content would get if the user sent it now. */
  'messages.render': readCommand((ctx, input: { content: string }) => ({ rendered: renderAs(ctx.state, ctx.config, ctx.user, input.content).html })),

  'messages.get': readCommand((ctx, input: { messageId: number; applyMarkdown: boolean; allowEmptyTopicName: boolean }) => {
    const { message, flags } = accessibleMessage(ctx, ctx.user, input.messageId);
    const view = messageView(ctx.state, message, ctx.fakeEmailDomain, { applyMarkdown: input.applyMarkdown, clientGravatar: false, allowEmptyTopicName: input.allowEmptyTopicName });
    const shown = sendersSeen(ctx, accessibleUsers(ctx, ctx.user), message) ? view : withUnknownSender(view, ctx.fakeEmailDomain);
    return { message: { ...shown, flags: flagNames(flags ?? HISTORICAL_FLAGS) }, raw_content: message.content };
  }),
};

/** Zulip's MAX_MESSAGES_PER_FETCH, for a window and a list of IDs alike. */
function checkFetchSize(count: number): void {
  if (count > MAX_MESSAGES_PER_FETCH) throw errors.badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
}

/** A message's view as JSON, kept (state.messageJson) by variant of the view: the same for every
 * viewer, so the recent messages many users fetch are encoded once, and their records not read
 * again (`message` is asked for only to make the view). */
function messageViewJson(ctx: ReadContext, entry: FetchEntry, view: MessageViewOptions): string {
  const variant = (view.applyMarkdown ? 4 : 0) | (view.clientGravatar ? 2 : 0) | (view.allowEmptyTopicName ? 1 : 0);
  return ctx.state.messageJson.get(entry.id, variant, () => JSON.stringify(messageView(ctx.state, entry.message, ctx.fakeEmailDomain, view)));
}

/** A message a fetch shows: its record read only when asked for (WindowEntry's is lazy). */
type FetchEntry = { readonly id: number; readonly message: MessageRecord; readonly flags: number };

type FetchedMessage = ReturnType<typeof messageView> & { flags: string[]; match_content?: string; match_subject?: string };

/** Whether a viewer who sees only the users `seen` (undefined: everyone) may see the message's
 * sender: a restricted guest sees a channel message's sender only while they share a channel. The
 * record is read only for such a viewer. */
const sendersSeen = (ctx: ReadContext, seen: ReadonlySet<number> | undefined, message: MessageRecord): boolean => seen === undefined || sees(seen, ctx.state.users.get(message.senderId)!);

/** A message as a fetch shows it, as JSON: the client's view (its sender an "Unknown user" to a
 * viewer who may not see them, `seen`), the viewer's flags and, for a search, the matches
 * highlighted. */
function fetchedMessage(ctx: ReadContext, entry: FetchEntry, view: MessageViewOptions, search: SearchQuery | undefined, seen: ReadonlySet<number> | undefined): string {
  const highlights = search ? `,${membersJson(searchHighlights(search, entry.message))}` : '';
  const json = sendersSeen(ctx, seen, entry.message) ? messageViewJson(ctx, entry, view) : JSON.stringify(withUnknownSender(messageView(ctx.state, entry.message, ctx.fakeEmailDomain, view), ctx.fakeEmailDomain));
  return `${json.slice(0, -1)},"flags":${JSON.stringify(flagNames(entry.flags))}${highlights}}`;
}

/** Zulip's cap on unread messages in register; older ones are reported as missing. */
export const MAX_UNREAD_MESSAGES = 50_000;
const anyMention = Flag.mentioned | Flag.stream_wildcard_mentioned | Flag.topic_wildcard_mentioned | Flag.group_mentioned;

/** register's `message` state: the newest message ID and the unread messages, by conversation
 * (the empty topic by its display name for clients that do not take it). */
export function messagesInitialState(ctx: ReadContext, allowEmptyTopicName: boolean) {
  const user = ctx.user;
  const unread = ctx.store.userMessages.flagged(user.id, Flag.read, false, { limit: MAX_UNREAD_MESSAGES });
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const pms = new Map<number, { other_user_id: number; sender_id: number; unread_message_ids: number[] }>();
  const huddles = new Map<string, { user_ids_string: string; unread_message_ids: number[] }>();
  const mentions: number[] = [];
  for (let index = 0; index < unread.ids.length; index++) {
    const id = unread.ids[index]!;
    const flags = unread.flags[index]!;
    // The message's place (channel and topic, or participants): its header, not the whole record.
    const header = ctx.store.messageHeader(id)!;
    if (flags & anyMention) mentions.push(id);
    if (header.type === 'stream') {
      const key = `${header.channelId}:${header.topic}`;
      if (!streams.has(key)) streams.set(key, { stream_id: header.channelId!, topic: shownTopic(header.topic, allowEmptyTopicName), unread_message_ids: [] });
      streams.get(key)!.unread_message_ids.push(id);
    } else if (header.participants.length <= 2) {
      const other = header.participants.find((participant) => participant !== user.id) ?? user.id;
      if (!pms.has(other)) pms.set(other, { other_user_id: other, sender_id: other, unread_message_ids: [] });
      pms.get(other)!.unread_message_ids.push(id);
    } else {
      const key = header.participants.join(',');
      if (!huddles.has(key)) huddles.set(key, { user_ids_string: key, unread_message_ids: [] });
      huddles.get(key)!.unread_message_ids.push(id);
    }
  }
  return {
    max_message_id: ctx.store.userMessages.newest(user.id),
    unread_msgs: {
      count: unread.ids.length,
      pms: [...pms.values()],
      streams: [...streams.values()],
      huddles: [...huddles.values()],
      mentions,
      old_unreads_missing: unread.more,
    },
  };
}
