// POST /register: creates an event queue and returns the initial state of everything the client
// asked for, in one step of the realm actor, after every earlier write is committed and its events
// delivered — so the initial state plus the queue's events always equals a fresh register.
import { editSettings } from '../../messages/editRights.js';
import { resolveNarrow, type RawTerm } from '../../messages/narrow.js';
import { realmUrl } from '../records.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../../version.js';
import { readCommand, type CommandContext } from '../context.js';
import { callsInitialState } from './calls.js';
import { channelsInitialState, subscriptionsInitialState } from './channels.js';
import { draftsInitialState } from './drafts.js';
import { foldersInitialState } from './folders.js';
import { groupsInitialState } from './groups.js';
import { limits } from './limits.js';
import { linkifiersInitialState } from './linkifiers.js';
import { messagesInitialState } from './messages.js';
import { profileFieldsInitialState } from './profileFields.js';
import { pushInitialState } from './push.js';
import { scheduledInitialState } from './scheduled.js';
import { alertWordsInitialState, settingsInitialState } from './settings.js';
import { statusInitialState } from './status.js';
import { mutedTopicsInitialState, userTopicsInitialState } from './userTopics.js';
import { usersInitialState } from './users.js';

/** Zulip's event_queue_longpoll_timeout_seconds: how long clients wait on GET /events. */
export const LONGPOLL_TIMEOUT_SECONDS = 90;
const MAX_LIFESPAN_SECONDS = 7 * 24 * 3600;

export interface RegisterInput {
  eventTypes: string[] | null;
  fetchEventTypes: string[] | null;
  narrow: RawTerm[];
  allPublicStreams: boolean;
  clientGravatar: boolean;
  applyMarkdown: boolean;
  includeSubscribers: boolean;
  lifespanSecs: number | null;
}

type Fetcher = (ctx: CommandContext, input: RegisterInput) => object;

function realmState(ctx: CommandContext) {
  const { realm } = ctx.state;
  const url = realmUrl(realm, ctx.config);
  const editing = editSettings(ctx.state);
  return {
    realm_name: realm.name,
    realm_description: realm.description,
    realm_uri: url,
    realm_url: url,
    realm_date_created: realm.dateCreated,
    realm_enable_spectator_access: realm.enableSpectatorAccess,
    server_web_public_streams_enabled: ctx.config.webPublicStreamsEnabled,
    development_environment: ctx.config.mode === 'development',
    realm_new_stream_announcements_stream_id: realm.newChannelAnnouncementsChannelId ?? -1,
    realm_allow_edit_history: realm.editHistoryVisible !== false,
    realm_allow_message_editing: editing.allowMessageEditing,
    realm_message_content_edit_limit_seconds: editing.contentEditLimitSeconds,
    realm_move_messages_within_stream_limit_seconds: editing.moveWithinChannelLimitSeconds,
    realm_move_messages_between_streams_limit_seconds: editing.moveBetweenChannelsLimitSeconds,
    realm_can_move_messages_between_topics_group: realm.permissions.can_move_messages_between_topics_group ?? ctx.state.systemGroup('role:everyone'),
    realm_can_move_messages_between_channels_group: realm.permissions.can_move_messages_between_channels_group ?? ctx.state.systemGroup('role:members'),
  };
}

/** Initial state by the event type whose events keep it current. */
const fetchers = new Map<string, Fetcher>([
  ['realm', realmState],
  ['realm_user', (ctx, input) => usersInitialState(ctx, { clientGravatar: input.clientGravatar })],
  ['subscription', (ctx, input) => subscriptionsInitialState(ctx, input.includeSubscribers)],
  ['stream', channelsInitialState],
  ['message', messagesInitialState],
  ['user_group', groupsInitialState],
  ['user_status', statusInitialState],
  ['custom_profile_fields', profileFieldsInitialState],
  ['user_settings', settingsInitialState],
  ['alert_words', alertWordsInitialState],
  ['drafts', draftsInitialState],
  ['scheduled_messages', scheduledInitialState],
  ['push_device', pushInitialState],
  // Zulip fetches has_zoom_token with `video_calls`; its event type is also accepted.
  ['video_calls', callsInitialState],
  ['has_provider_token', callsInitialState],
  ['realm_linkifiers', linkifiersInitialState],
  ['user_topic', userTopicsInitialState],
  ['muted_topics', mutedTopicsInitialState],
  ['channel_folder', foldersInitialState],
  ['default_streams', (ctx) => ({ realm_default_streams: ctx.state.realm.defaultChannelIds })],
]);

export const registerCommands = {
  'events.register': readCommand((ctx, input: RegisterInput) => {
    const user = ctx.actor;
    const lifespan = Math.min(input.lifespanSecs ?? ctx.config.queueLifespanSeconds, MAX_LIFESPAN_SECONDS);
    const queue = ctx.queues.create({
      realmId: ctx.state.realm.id,
      userId: user.id,
      eventTypes: input.eventTypes,
      allPublicStreams: input.allPublicStreams,
      narrow: resolveNarrow(ctx.state, user, input.narrow, ctx.fakeEmailDomain),
      clientGravatar: input.clientGravatar,
      applyMarkdown: input.applyMarkdown,
      lifespanMs: lifespan * 1000,
    });
    const wanted = input.fetchEventTypes ?? input.eventTypes;
    const state: Record<string, unknown> = {
      queue_id: queue.id,
      last_event_id: queue.lastEventId,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_version: ZULIP_VERSION,
      zulip_merge_base: ZULIP_MERGE_BASE,
      event_queue_longpoll_timeout_seconds: LONGPOLL_TIMEOUT_SECONDS,
      server_generation: ctx.queues.serverGeneration,
      realm_empty_topic_display_name: ctx.state.realm.emptyTopicDisplayName,
      ...limits,
    };
    for (const [type, fetch] of fetchers) if (wanted === null || wanted.includes(type)) Object.assign(state, fetch(ctx, input));
    return state;
  }),
};
