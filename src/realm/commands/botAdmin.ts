// Bots their owners (and administrators) manage: creating one (with an outgoing webhook's service
// or a configuration), changing its name, owner and service, a new API key, deactivation (Zulip's
// zerver/views/users.py bot endpoints and access_bot_by_id).
import { errors } from '../../errors.js';
import { newApiKey } from '../../users/apiKey.js';
import { BotType, isAdmin, Role, ServiceInterface, type BotService, type UserRecord } from '../../users/records.js';
import { checkFullName } from '../../users/names.js';
import { satisfies } from '../../groups/membership.js';
import { isSystemBot } from '../../organization/records.js';
import { realmGroupSetting } from '../../organization/settings.js';
import { writeCommand, type CommandContext } from '../context.js';
import { announceBot } from './bots.js';
import { deactivateBot } from './lifecycle.js';
import { announceNewUser, checkNewUser, emitSystemGroupJoin, emitUserEvent, insertUser, viewAs } from './users.js';

/** What creating and changing a bot share: its outgoing webhook's URL and interface, its
 * configuration. */
export interface BotServiceInput {
  payloadUrl?: string;
  interfaceType?: number;
  configData?: Record<string, unknown>;
}

export interface NewBot extends BotServiceInput {
  fullName: string;
  shortName: string;
  botType: number;
}

export interface BotChange extends BotServiceInput {
  botId: number;
  fullName?: string;
  botOwnerId?: number;
}

function checkPayloadUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw errors.badRequest('Enter a valid URL.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw errors.badRequest('Enter a valid URL.');
  // As parsed: scheme and host lower-cased, spaces trimmed.
  return parsed.href;
}

function checkInterface(interfaceType: number): number {
  if (!(Object.values(ServiceInterface) as number[]).includes(interfaceType)) throw errors.badRequest('Invalid interface type');
  return interfaceType;
}

function checkConfig(config: Record<string, unknown>): Record<string, string> {
  for (const [key, value] of Object.entries(config)) if (typeof value !== 'string') throw errors.badRequest(`config_data["${key}"] is not a string`);
  return config as Record<string, string>;
}

/** A bot's service after a change (or at creation: `current` undefined). */
function serviceOf(input: BotServiceInput, current: BotService | undefined): BotService {
  return {
    baseUrl: input.payloadUrl !== undefined ? checkPayloadUrl(input.payloadUrl) : (current?.baseUrl ?? ''),
    interface: input.interfaceType !== undefined ? checkInterface(input.interfaceType) : (current?.interface ?? ServiceInterface.zulip),
    token: current?.token ?? newApiKey(),
  };
}

/** The bot a requester may manage: its owner's and administrators' (Zulip's access_bot_by_id). */
function managedBot(ctx: CommandContext, botId: number): UserRecord {
  const bot = ctx.state.users.get(botId);
  if (!bot?.isBot || isSystemBot(ctx.state.realm, bot.id)) throw errors.badRequest('No such bot');
  const requester = ctx.user;
  if (!isAdmin(requester) && bot.botOwnerId !== requester.id) throw errors.insufficientRights();
  return bot;
}

function newOwner(ctx: CommandContext, userId: number): UserRecord {
  const owner = ctx.state.users.get(userId);
  if (!owner) throw errors.badRequest('Failed to change owner, no such user');
  if (!owner.isActive) throw errors.badRequest('Failed to change owner, user is deactivated');
  if (owner.isBot) throw errors.badRequest("Failed to change owner, bots can't own other bots");
  return owner;
}

export const botAdminCommands = {
  'bots.create': writeCommand((ctx, input: NewBot) => {
    const owner = ctx.user;
    // Zulip's check_bot_creation_policy: every kind of bot, or only write-only ones (incoming webhooks).
    const mayCreate = (setting: 'can_create_bots_group' | 'can_create_write_only_bots_group') => satisfies(ctx.state, realmGroupSetting(ctx.state, setting), owner);
    if (owner.role === Role.guest || !(mayCreate('can_create_bots_group') || (input.botType === BotType.incomingWebhook && mayCreate('can_create_write_only_bots_group')))) throw errors.insufficientRights();
    if (!/^[a-z0-9._-]+$/i.test(input.shortName)) throw errors.badRequest('Bad name or username');
    if (!(Object.values(BotType) as number[]).includes(input.botType)) throw errors.badRequest('Invalid bot type');
    if (input.botType === BotType.outgoingWebhook && input.payloadUrl === undefined) throw errors.missingArgument('payload_url');
    const service = input.botType === BotType.outgoingWebhook ? { service: serviceOf(input, undefined) } : {};
    const config = input.configData !== undefined && input.botType === BotType.embedded ? { botConfig: checkConfig(input.configData) } : {};
    const email = `${input.shortName}-bot@${ctx.fakeEmailDomain}`;
    checkNewUser(ctx, { email, fullName: input.fullName, role: Role.member, passwordHash: null });
    const inserted = insertUser(ctx, { email, fullName: input.fullName, role: Role.member, passwordHash: null }, { isBot: true, botType: input.botType, botOwnerId: owner.id });
    const bot = { ...inserted, ...service, ...config };
    if (bot !== inserted) ctx.save('user', bot);
    announceNewUser(ctx, bot);
    emitSystemGroupJoin(ctx, bot);
    announceBot(ctx, undefined, bot);
    return { user_id: bot.id, api_key: bot.apiKey, avatar_url: viewAs(ctx, bot, { clientGravatar: false }).avatar_url, default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false };
  }),

  /** PATCH /bots/{bot_id}: the fields given, each checked before any is saved. */
  'bots.update': writeCommand((ctx, input: BotChange) => {
    const before = managedBot(ctx, input.botId);
    let after: UserRecord = { ...before };
    if (input.fullName !== undefined && input.fullName !== before.fullName) after.fullName = checkFullName(input.fullName);
    if (input.botOwnerId !== undefined) after.botOwnerId = newOwner(ctx, input.botOwnerId).id;
    if (before.botType === BotType.outgoingWebhook && (input.payloadUrl !== undefined || input.interfaceType !== undefined)) after.service = serviceOf(input, before.service);
    if (input.configData !== undefined) after = { ...after, botConfig: { ...before.botConfig, ...checkConfig(input.configData) } };
    ctx.save('user', after);
    if (after.fullName !== before.fullName) emitUserEvent(ctx, after, () => ({ type: 'realm_user', op: 'update', person: { user_id: after.id, full_name: after.fullName } }));
    if (after.botOwnerId !== before.botOwnerId && after.botOwnerId !== null) ctx.emit({ type: 'realm_user', op: 'update', person: { user_id: after.id, bot_owner_id: after.botOwnerId } }, ctx.activeUserIds());
    announceBot(ctx, before, after);
    const owner = after.botOwnerId === null ? undefined : ctx.state.users.get(after.botOwnerId);
    return {
      full_name: after.fullName,
      avatar_url: viewAs(ctx, after, { clientGravatar: false }).avatar_url,
      service_interface: after.service?.interface ?? null,
      service_payload_url: after.service?.baseUrl ?? null,
      config_data: after.botConfig ?? null,
      default_sending_stream: null,
      default_events_register_stream: null,
      default_all_public_streams: false,
      ...(owner ? { bot_owner: owner.email } : {}),
    };
  }),

  'bots.regenerateKey': writeCommand((ctx, input: { botId: number }) => {
    const before = managedBot(ctx, input.botId);
    const after = { ...before, apiKey: newApiKey() };
    ctx.save('user', after);
    announceBot(ctx, before, after);
    return { api_key: after.apiKey };
  }),

  'bots.deactivate': writeCommand((ctx, input: { botId: number }) => {
    deactivateBot(ctx, ctx.user, managedBot(ctx, input.botId));
    return {};
  }),
};
