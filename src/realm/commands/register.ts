// POST /register: creates an event queue and returns the initial state of everything the client
// asked for, in one step of the realm actor, after every earlier write is committed and its events
// delivered — so the initial state plus the queue's events always equals a fresh register.
import { errors } from '../../errors.js';
import { Role } from '../../users/records.js';
import { incomingWebhookBots } from '../../integrations/catalog.js';
import { declaredCapabilities, type ClientCapabilities } from '../../events/capabilities.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../messages/emptyTopic.js';
import { resolveNarrow, type RawTerm } from '../../messages/narrow.js';
import { narrowLookup } from './messageAccess.js';
import { STOP_WORDS } from '../../messages/search.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../../version.js';
import { realmEmojiInitialState } from './realmEmoji.js';
import { readCommand, type ReadContext } from '../context.js';
import { membersOf } from '../jsonFields.js';
import { realmBotsInitialState } from './bots.js';
import { callsInitialState } from './calls.js';
import { channelsInitialState, subscriptionsInitialState } from './channels.js';
import { recentConversationsInitialState, starredInitialState } from './conversations.js';
import { draftsInitialState } from './drafts.js';
import { savedSnippetsInitialState } from './savedSnippets.js';
import { playgroundsInitialState } from './playgrounds.js';
import { navigationViewsInitialState } from './navigationViews.js';
import { foldersInitialState } from './folders.js';
import { groupsInitialState } from './groups.js';
import { limits } from './limits.js';
import { linkifiersInitialState } from './linkifiers.js';
import { messagesInitialState } from './messages.js';
import { mutedUsersInitialState } from './mutedUsers.js';
import { profileFieldsInitialState } from './profileFields.js';
import { presenceInitialState } from './presence.js';
import { pushInitialState } from './push.js';
import { realmInitialState } from './realmState.js';
import { remindersInitialState } from './reminders.js';
import { scheduledInitialState } from './scheduled.js';
import { alertWordsInitialState, legacySettingsInitialState, settingDefaultsInitialState, settingsInitialState } from './settings.js';
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
  clientCapabilities: ClientCapabilities;
  slimPresence: boolean;
  presenceHistoryLimitDays: number | null;
}

type Fetcher = (ctx: ReadContext, input: RegisterInput) => object;

/** A state that is empty until the server has the feature it belongs to. */
const empty =
  <K extends string, V>(key: K, value: () => V): Fetcher =>
  () => ({ [key]: value() });

/** Initial state by fetch type (Zulip's names, as its reference documents them). */
const fetchers = new Map<string, Fetcher>([
  // The same for every user: made once until the realm's state changes (it was ~40 % of a register).
  ['realm', (ctx) => ctx.state.realmRegisterState.get(null, () => realmInitialState(ctx))],
  ['realm_user', (ctx, input) => usersInitialState(ctx, { clientGravatar: input.clientGravatar, userListIncomplete: input.clientCapabilities.user_list_incomplete === true })],
  ['realm_bot', realmBotsInitialState],
  ['subscription', (ctx, input) => subscriptionsInitialState(ctx, input.includeSubscribers, input.clientCapabilities.archived_channels === true, input.clientCapabilities.notification_settings_null === true)],
  ['stream', (ctx, input) => channelsInitialState(ctx, input.clientCapabilities.archived_channels === true)],
  ['message', (ctx, input) => messagesInitialState(ctx, input.clientCapabilities.empty_topic_name === true)],
  ['starred_messages', starredInitialState],
  ['recent_private_conversations', recentConversationsInitialState],
  ['realm_user_groups', (ctx, input) => groupsInitialState(ctx, input.clientCapabilities.include_deactivated_groups === true)],
  ['user_status', statusInitialState],
  ['custom_profile_fields', profileFieldsInitialState],
  ['user_settings', settingsInitialState],
  ['realm_user_settings_defaults', settingDefaultsInitialState],
  ['update_display_settings', (ctx, input) => (input.clientCapabilities.user_settings_object ? {} : legacySettingsInitialState('display')(ctx))],
  ['update_global_notifications', (ctx, input) => (input.clientCapabilities.user_settings_object ? {} : legacySettingsInitialState('notification')(ctx))],
  ['alert_words', alertWordsInitialState],
  ['drafts', draftsInitialState],
  ['scheduled_messages', scheduledInitialState],
  ['reminders', remindersInitialState],
  ['push_device', pushInitialState],
  ['video_calls', callsInitialState],
  ['has_provider_token', callsInitialState],
  ['realm_linkifiers', (ctx, input) => linkifiersInitialState(ctx, input.clientCapabilities.linkifier_url_template === true)],
  // Linkifiers in the pre-7.0 shape: always empty since feature level 176, as in Zulip.
  ['realm_filters', empty('realm_filters', () => [])],
  ['user_topic', (ctx, input) => userTopicsInitialState(ctx, input.clientCapabilities.empty_topic_name === true)],
  ['muted_topics', mutedTopicsInitialState],
  ['muted_users', mutedUsersInitialState],
  ['channel_folders', foldersInitialState],
  ['default_streams', (ctx) => ({ realm_default_streams: ctx.state.realm.defaultChannelIds })],
  ['default_stream_groups', empty('realm_default_stream_groups', () => [])],
  ['stop_words', () => ({ stop_words: [...STOP_WORDS] })],
  ['giphy', empty('giphy_api_key', () => '')],
  ['realm_billing', empty('realm_billing', () => ({ has_pending_sponsorship_request: false }))],
  ['realm_domains', empty('realm_domains', () => [])],
  ['realm_embedded_bots', empty('realm_embedded_bots', () => [])],
  ['realm_incoming_webhook_bots', empty('realm_incoming_webhook_bots', incomingWebhookBots)],
  ['presence', (ctx, input) => presenceInitialState(ctx, { slim: input.slimPresence, historyLimitDays: input.presenceHistoryLimitDays })],
  // Features the server does not have yet: their true empty state.
  ['realm_emoji', realmEmojiInitialState],
  ['realm_playgrounds', playgroundsInitialState],
  ['saved_snippets', savedSnippetsInitialState],
  ['navigation_views', navigationViewsInitialState],
  ['onboarding_steps', () => ({ onboarding_steps: [], navigation_tour_video_url: null })],
]);

export const registerCommands = {
  /** The state a new event queue starts from (its members as JSON), the queue's settings, and the
   * realm's position (and its epoch) when the state was read: the caller opens the queue there
   * (EventQueues.begin), wherever it runs. */
  'events.register': readCommand((ctx, input: RegisterInput) => {
    const user = ctx.user;
    // Zulip's can_access_public_streams: guests see only the channels they are in.
    if (input.allPublicStreams && user.role === Role.guest) throw errors.queryNotAuthorized();
    const lifespan = Math.min(input.lifespanSecs ?? ctx.config.queueLifespanSeconds, MAX_LIFESPAN_SECONDS);
    const queue = {
      eventTypes: input.eventTypes,
      allPublicStreams: input.allPublicStreams,
      narrow: resolveNarrow(ctx.state, user, input.narrow, ctx.fakeEmailDomain, narrowLookup(ctx, user)),
      clientGravatar: input.clientGravatar,
      applyMarkdown: input.applyMarkdown,
      userSettingsObject: input.clientCapabilities.user_settings_object === true,
      capabilities: declaredCapabilities(input.clientCapabilities),
      lifespanMs: lifespan * 1000,
    };
    const wanted = input.fetchEventTypes ?? input.eventTypes;
    const state: Record<string, unknown> = {
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_version: ZULIP_VERSION,
      zulip_merge_base: ZULIP_MERGE_BASE,
      event_queue_longpoll_timeout_seconds: LONGPOLL_TIMEOUT_SECONDS,
      realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
      ...limits,
    };
    for (const [type, fetch] of fetchers) if (wanted === null || wanted.includes(type)) Object.assign(state, fetch(ctx, input));
    // The state as the client gets it, made here: it crosses to another thread or node as JSON,
    // rather than as objects copied and encoded again.
    return { state: membersOf(state), queue, position: ctx.events.position(ctx.state.realm.id), epoch: ctx.events.epoch(ctx.state.realm.id) };
  }),
};
