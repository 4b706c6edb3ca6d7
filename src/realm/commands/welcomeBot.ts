// Welcome Bot, the server's bot that greets people (Zulip's): a new user's first direct message,
// then the organization's custom welcome text (or the one their invitation carried), and the test
// of that text an administrator sends themself (POST /realm/test_welcome_bot_custom_message).
import { errors } from '../../errors.js';
import { realmProperty } from '../../organization/settings.js';
import { isAdmin, Role, type UserRecord } from '../../users/records.js';
import { writeCommand, type CommandContext } from '../context.js';
import { sendMessage } from './messages.js';
import { announceNewUser, insertUser } from './users.js';

const WELCOME_BOT_NAME = 'Welcome Bot';

/** The realm's Welcome Bot: made with the realm, or, in a realm from before it, when first needed
 * (announced to everyone then, as any new user). */
export function welcomeBot(ctx: CommandContext): UserRecord {
  const known = ctx.state.realm.welcomeBotId;
  const existing = known === undefined ? undefined : ctx.state.users.get(known);
  if (existing) return existing;
  const email = `welcome-bot@${ctx.fakeEmailDomain}`;
  const bot = insertUser(ctx, { email, fullName: WELCOME_BOT_NAME, role: Role.member, passwordHash: null }, { isBot: true, botType: 1, botOwnerId: null });
  ctx.saveRealm({ welcomeBotId: bot.id });
  announceNewUser(ctx, bot);
  return bot;
}

/** A direct message from Welcome Bot, read in the app: no push or e-mail notification. */
const fromWelcomeBot = (ctx: CommandContext, to: UserRecord, content: string) =>
  sendMessage(ctx, welcomeBot(ctx), { type: 'private', to: [to.id], topic: null, content, readBySender: true, client: 'Internal', system: true, quiet: true });

/** The custom welcome text as new users get it. */
const customWelcome = (ctx: CommandContext, text: string): string => `A message from the administrators of ${ctx.state.realm.name}:\n\n${text}`;

function greeting(ctx: CommandContext, user: UserRecord): string {
  const lines = [
    `Hello, and welcome to ${ctx.state.realm.name}! :wave:`,
    'Conversations here happen in channels, and every conversation in a channel has a topic: browse the channels in the left sidebar, and when you start a conversation, give it a topic that says what it is about.',
  ];
  if (isAdmin(user)) lines.push('As an administrator, you can set up channels, user groups, integrations and bots in the organization settings.');
  return lines.join('\n\n');
}

/** Greets a person who has just joined: the greeting, then the welcome text (the invitation's if it
 * carried one, the organization's otherwise; none when it is empty). */
export function greetNewUser(ctx: CommandContext, user: UserRecord, invitationText: string | null = null): void {
  fromWelcomeBot(ctx, user, greeting(ctx, user));
  const text = invitationText ?? realmProperty(ctx.state, 'welcome_message_custom_text');
  if (text !== '') fromWelcomeBot(ctx, user, customWelcome(ctx, text));
}

export const welcomeBotCommands = {
  /** The custom welcome text, sent to the administrator who asks, as new users would get it. */
  'realm.testWelcomeMessage': writeCommand((ctx, input: { text: string }) => {
    if (!isAdmin(ctx.user)) throw errors.adminRequired();
    if (input.text === '') throw errors.badRequest('Message must not be empty');
    return { message_id: fromWelcomeBot(ctx, ctx.user, customWelcome(ctx, input.text)).id };
  }),
};
