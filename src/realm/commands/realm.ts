// Organization-level commands of the system itself: bootstrapping a new realm (its notification
// bot) and the settings the management tools set.
import { errors } from '../../errors.js';
import { welcomeBot } from './welcomeBot.js';
import type { RealmRecord } from '../../organization/records.js';
import { Role } from '../../users/records.js';
import { readCommand, writeCommand } from '../context.js';
import { insertUser } from './users.js';

const NOTIFICATION_BOT_NAME = 'Notification Bot';

type RealmSummary = Pick<RealmRecord, 'id' | 'subdomain' | 'name' | 'description' | 'enableSpectatorAccess'>;

/** Each realm record's summary. A record is replaced, never changed in place, when the realm
 * changes (`saveRealm`). */
const summaries = new WeakMap<RealmRecord, RealmSummary>();


export const realmCommands = {
  /** Readiness (GET /ready): the actor answers, every earlier write is durable, and the store's last
   * write batch was saved. */
  'realm.health': readCommand((ctx) => ({ storageFailure: ctx.store.storageFailure })),

  /** What unauthenticated pages show of the organization (server settings, push payloads): the
   * same object until the realm's record changes (what is made of it can be kept by it). */
  'realm.summary': readCommand((ctx) => {
    const record = ctx.state.realm;
    let summary = summaries.get(record);
    if (!summary) {
      const { id, subdomain, name, description, enableSpectatorAccess } = record;
      summaries.set(record, (summary = { id, subdomain, name, description, enableSpectatorAccess }));
    }
    return summary;
  }),

  /** Run once by Realms.create: the server's bots, without owners (notification bot, Welcome Bot). */
  'realm.bootstrap': writeCommand((ctx) => {
    if (ctx.hasUser) throw errors.insufficientRights();
    const email = `notification-bot@${ctx.fakeEmailDomain}`;
    const bot = insertUser(ctx, { email, fullName: NOTIFICATION_BOT_NAME, role: Role.member, passwordHash: null }, { isBot: true, botType: 1, botOwnerId: null });
    ctx.saveRealm({ notificationBotId: bot.id });
    welcomeBot(ctx);
    return {};
  }),

  /** Whether edit history is shown (Zulip's realm_allow_edit_history). */
  'realm.setEditHistory': writeCommand((ctx, input: { visible: boolean }) => {
    if (ctx.hasUser) throw errors.insufficientRights();
    ctx.saveRealm({ editHistoryVisible: input.visible });
    const everyone = ctx.activeUserIds();
    ctx.emit({ type: 'realm', op: 'update', property: 'allow_edit_history', value: input.visible }, everyone);
    ctx.emit({ type: 'realm', op: 'update', property: 'message_edit_history_visibility_policy', value: input.visible ? 'all' : 'none' }, everyone);
    return {};
  }),

  /** Where new channels are announced (the demo seed and management tools set it). */
  'realm.setAnnouncementsChannel': writeCommand((ctx, input: { channelId: number | null }) => {
    if (ctx.hasUser) throw errors.insufficientRights();
    if (input.channelId !== null && !ctx.state.channels.has(input.channelId)) throw errors.badRequest('Invalid channel ID');
    ctx.saveRealm({ newChannelAnnouncementsChannelId: input.channelId });
    const everyone = ctx.activeUserIds();
    ctx.emit({ type: 'realm', op: 'update', property: 'new_stream_announcements_stream_id', value: input.channelId ?? -1 }, everyone);
    return {};
  }),
};
