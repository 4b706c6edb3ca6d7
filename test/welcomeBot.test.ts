// Welcome Bot: people added through the API or joining by invitation get its greeting and the
// organization's custom welcome text (or their invitation's); administrators test that text on
// themselves; the bot is the server's, nobody's to manage.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiClient } from './helpers/client.js';
import { pollEvents, register } from './helpers/events.js';
import { assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const welcome = suite<{ server: TestServer }>('Welcome Bot');

welcome.before(async (context) => {
  context.server = await startTestServer();
});
welcome.after(async ({ server }) => server.stop());

interface Message {
  id: number;
  sender_email: string;
  sender_full_name: string;
  content: string;
  type: string;
  display_recipient: { email: string }[];
}

let counter = 0;
const freshEmail = (prefix: string) => `${prefix}${++counter}@zulip.com`;

/** Welcome Bot as the user list shows it. */
async function welcomeBot(client: ApiClient): Promise<{ user_id: number; email: string; is_bot: boolean }> {
  const users = (await client.get('/users')).body.members as { user_id: number; email: string; full_name: string; is_bot: boolean }[];
  return users.find((user) => user.full_name === 'Welcome Bot')!;
}

/** What a user has received from Welcome Bot, oldest first, as Markdown. */
async function fromWelcomeBot(client: ApiClient): Promise<Message[]> {
  const bot = await welcomeBot(client);
  const response = await client.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 100, apply_markdown: false, narrow: [{ operator: 'sender', operand: bot.user_id }] });
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('GET /messages', response.body);
  return response.body.messages as Message[];
}

welcome('a user added through the API is greeted, then given the custom welcome text when the organization has one', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const plain = freshEmail('plain');
  assert.is((await iago.post('/users', { email: plain, full_name: 'Plain Newcomer', password: 'long enough' })).status, 200);
  const greeted = await fromWelcomeBot(await server.as(plain));
  assert.equal(greeted.map((message) => [message.sender_full_name, message.type]), [['Welcome Bot', 'private']]);
  assert.match(greeted[0]!.content, /^Hello, and welcome to /);

  assert.is((await iago.patch('/realm', { welcome_message_custom_text: 'Read **#rules** first.' })).status, 200);
  const told = freshEmail('told');
  assert.is((await iago.post('/users', { email: told, full_name: 'Told Newcomer', password: 'long enough' })).status, 200);
  const messages = await fromWelcomeBot(await server.as(told));
  assert.is(messages.length, 2);
  assert.ok(messages[1]!.content.endsWith('Read **#rules** first.'), messages[1]!.content);
  assert.is((await iago.patch('/realm', { welcome_message_custom_text: '' })).status, 200);
});

welcome("an invitation's own welcome text wins over the organization's; an empty one sends none", async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  assert.is((await iago.patch('/realm', { welcome_message_custom_text: 'The organization says hello.' })).status, 200);
  const join = async (text: string | undefined): Promise<Message[]> => {
    const made = await iago.post('/invites/multiuse', { invite_as: 400, ...(text === undefined ? {} : { welcome_message_custom_text: text }) });
    assert.is(made.status, 200, JSON.stringify(made.body));
    const email = freshEmail('invited');
    const page = await fetch(`${server.baseUrl}${new URL(String(made.body.invite_link)).pathname}`, { method: 'POST', body: new URLSearchParams({ email, full_name: 'Invited Person', password: 'long enough' }) });
    assert.is(page.status, 200, await page.text());
    return fromWelcomeBot(await server.as(email));
  };
  assert.ok((await join('Welcome to the team, from your inviter.'))[1]!.content.endsWith('Welcome to the team, from your inviter.'));
  assert.ok((await join(undefined))[1]!.content.endsWith('The organization says hello.'));
  assert.is((await join('')).length, 1, 'only the greeting');
  assert.is((await iago.patch('/realm', { welcome_message_custom_text: '' })).status, 200);
});

welcome('POST /realm/test_welcome_bot_custom_message sends the text to the administrator who asks, from Welcome Bot', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const { queueId } = await register(iago, { event_types: ['message'] });
  const sent = await iago.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'A test of the welcome text.' });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  assertMatchesReference('POST /realm/test_welcome_bot_custom_message', sent.body);
  const [event] = await pollEvents(iago, queueId, 1);
  const message = event!.message as Message;
  assert.is(message.id, sent.body.message_id);
  const bot = await welcomeBot(iago);
  assert.equal([message.sender_email, message.display_recipient.map((person) => person.email).sort()], [bot.email, [bot.email, 'iago@zulip.com'].sort()]);
  assert.ok((await fromWelcomeBot(iago)).some((received) => received.id === sent.body.message_id && received.content.endsWith('A test of the welcome text.')));
});

welcome('the test message: administrators only, not empty, at most 8000 characters', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const member = await hamlet.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'hi' });
  assert.equal([member.status, member.body.code, member.body.msg], [400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator']);
  const empty = await iago.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: '' });
  assert.equal([empty.status, empty.body.msg], [400, 'Message must not be empty']);
  assert.is((await iago.post('/realm/test_welcome_bot_custom_message', { welcome_message_custom_text: 'x'.repeat(8001) })).status, 400);
  assert.is((await iago.post('/realm/test_welcome_bot_custom_message', {})).body.code, 'REQUEST_VARIABLE_MISSING');
  assert.is((await fromWelcomeBot(hamlet)).length, 0, 'nothing was sent');
});

welcome('Welcome Bot answers what a person writes to it: help on what they ask, its list of commands once, then it lets them talk', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const email = freshEmail('curious');
  assert.is((await iago.post('/users', { email, full_name: 'Curious Newcomer', password: 'long enough' })).status, 200);
  const curious = await server.as(email);
  const bot = await welcomeBot(curious);
  const write = async (content: string, to = [bot.user_id]): Promise<string[]> => {
    const before = (await fromWelcomeBot(curious)).length;
    assert.is((await curious.post('/messages', { type: 'direct', to: JSON.stringify(to), content })).status, 200);
    return (await fromWelcomeBot(curious)).slice(before).map((message) => message.content);
  };
  const [help] = await write('Help');
  assert.match(help!, /^These are the messages I understand: `apps`, `profile`, .*`keyboard shortcuts`\.$/);
  assert.not.match(help!, /`help`/);
  assert.match((await write('apps'))[0]!, /zulip-terminal/);
  assert.match((await write('  Topics '))[0]!, /topic/);
  const [fallback] = await write('Hello there!');
  assert.match(fallback!, /`help`\.$/);
  assert.equal(await write('Just chatting.'), [], 'the list is given once');
  assert.match((await write('channels'))[0]!, /[Cc]hannels/, 'what it understands is still answered');
  const hamlet = Number((await (await server.as('hamlet@zulip.com')).get('/users/me')).body.user_id);
  assert.equal(await write('help', [bot.user_id, hamlet]), [], 'a group conversation is not answered');
});

welcome("Welcome Bot is the server's: in no one's bots, managed by nobody", async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const bot = await welcomeBot(iago);
  assert.ok(bot.is_bot);
  assert.match(bot.email, /^welcome-bot@/);
  const id = bot.user_id;
  const state = (await register(iago, { fetch_event_types: ['realm_bot'] })).state;
  assert.not.ok((state.realm_bots as { user_id: number }[]).some((listed) => listed.user_id === id));
  const managed = await iago.patch(`/bots/${id}`, { full_name: 'Renamed' });
  assert.equal([managed.status, managed.body.msg], [400, 'No such bot']);
});

welcome.run();
