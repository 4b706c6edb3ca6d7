// Welcome Bot, the server's bot that greets people (Zulip's): a new user's first direct message,
// then the organization's custom welcome text (or the one their invitation carried), the test of
// that text an administrator sends themself (POST /realm/test_welcome_bot_custom_message), and its
// answers to the direct messages people send it.
import { errors } from '../../errors.js';
import { realmProperty } from '../../organization/settings.js';
import type { MessageRecord } from '../../messages/records.js';
import { isAdmin, Role, type UserRecord } from '../../users/records.js';
import { writeCommand, type CommandContext } from '../context.js';
import { sendMessage } from './messages.js';
import { announceNewUser, insertUser } from './users.js';

const WELCOME_BOT_NAME = 'Welcome Bot';

/** The realm's Welcome Bot: made with the realm, or, in a realm from before it, when first needed
 * (announced to everyone then, like every new user). */
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

/** What Welcome Bot understands, as its answers list them. */
const COMMANDS = ['apps', 'profile', 'theme', 'channels', 'topics', 'message formatting', 'keyboard shortcuts', 'help'];
const commandList = (commands: string[]): string => `${commands.map((command) => `\`${command}\``).join(', ')}.`;
/** The list its fallback answer gives: said once to a person, then the bot stays quiet. */
const FALLBACK_LIST = commandList(COMMANDS);

/** Its answers by what a person writes (lowercased), in Parley's words. */
const answers: [string[], string][] = [
  [['app', 'apps'], "Parley speaks Zulip's API, so Zulip's apps work with it: the mobile app for Android and iOS and the terminal client, `zulip-terminal`. Give them this server's address and sign in as you do here."],
  [['profile'], 'Your name, picture and profile fields are in your personal settings, in every one of the apps.'],
  [['theme'], 'The theme, the emoji set and the language are personal settings: change them in your app’s settings.'],
  [['stream', 'streams', 'channel', 'channels'], 'Channels hold the conversations of a team or a subject, and their subscribers see them. Browse the organization’s channels in your app and subscribe to the ones you want.'],
  [['topic', 'topics'], 'Every conversation in a channel has a topic that says what it is about, so you can read one conversation at a time however many are going on. When you start one, name it as you would finish “Can we talk about…?”'],
  [['formatting', 'message formatting'], 'Messages are Markdown: **bold**, *italic*, `code`, code blocks, quotes, lists and tables, @-mentions of people and groups, #-links to channels and topics, spoilers, and math between `$$`.'],
  [['keyboard', 'shortcuts', 'keyboard shortcuts'], 'Zulip’s apps have keyboard shortcuts: in the web and desktop apps, press `?` to see them all.'],
  [['help', '?'], `These are the messages I understand: ${commandList(COMMANDS.filter((command) => command !== 'help'))}`],
];

const answerTo = (text: string): string =>
  answers.find(([words]) => words.includes(text.trim().toLowerCase()))?.[1] ?? `You can write to me as much as you like! For help, send one of these: ${FALLBACK_LIST}`;

/** Whether Welcome Bot already sent its fallback answer in this conversation. */
function toldCommands(ctx: CommandContext, bot: UserRecord, message: MessageRecord): boolean {
  for (const [id] of ctx.store.userMessages.conversationRange(message.senderId, message.recipientId, message.id, true)) {
    const earlier = ctx.store.messages.get(id);
    if (earlier?.senderId === bot.id && earlier.content.includes(FALLBACK_LIST)) return true;
  }
  return false;
}

/** Whether a direct message of `sender` to these participants is a person's to Welcome Bot alone. */
export function writesToWelcomeBot(ctx: CommandContext, sender: UserRecord, participants: readonly number[]): boolean {
  const botId = ctx.state.realm.welcomeBotId;
  return botId !== undefined && ctx.state.users.has(botId) && !sender.isBot && participants.length === 2 && participants.includes(botId);
}

/** Answers a person's direct message to Welcome Bot alone (`writesToWelcomeBot`, which the caller
 * checked), as Zulip's does: help on what they asked about, or the list of what it understands
 * (once; after that it lets them talk). */
export function answerWelcomeBotMessage(ctx: CommandContext, message: MessageRecord): void {
  const bot = ctx.state.realm.welcomeBotId === undefined ? undefined : ctx.state.users.get(ctx.state.realm.welcomeBotId);
  const sender = ctx.state.users.get(message.senderId);
  if (!bot || !sender) return;
  const answer = answerTo(message.content);
  if (answer.includes(FALLBACK_LIST) && toldCommands(ctx, bot, message)) return;
  fromWelcomeBot(ctx, sender, answer);
}

export const welcomeBotCommands = {
  /** The custom welcome text, sent to the administrator who asks, as new users would get it. */
  'realm.testWelcomeMessage': writeCommand((ctx, input: { text: string }) => {
    if (!isAdmin(ctx.user)) throw errors.adminRequired();
    if (input.text === '') throw errors.badRequest('Message must not be empty');
    return { message_id: fromWelcomeBot(ctx, ctx.user, customWelcome(ctx, input.text)).id };
  }),
};
