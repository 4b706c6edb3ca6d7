// Bot storage through HTTP, as Zulip's bot framework uses it (`bot_handler.storage`): a bot's own
// string keys and values, Zulip's size limit, its errors, and nothing changed by a refused request;
// kept across a restart on the same data.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { startParley, type Parley } from '../src/app.js';
import { assertRequiresCredentials } from './helpers/assert.js';
import { ApiClient, type ApiResponse, type Params } from './helpers/client.js';
import { startTestServer, type TestServer } from './helpers/server.js';

interface Context {
  server: TestServer;
  /** A bot whose storage is filled to the limit by the size test; the restart test reads it. */
  full?: ApiClient;
  /** The same server started again on its data by the restart test. */
  restarted?: Parley;
}

const storage = suite<Context>('bot storage');

storage.before(async (context) => {
  context.server = await startTestServer();
});
storage.after(async ({ server, restarted }) => {
  if (!restarted) return server.stop();
  await restarted.close();
  rmSync(server.config.dataDir, { recursive: true, force: true });
});

const LIMIT = 10_000_000;

/** A new generic bot of Hamlet's, as a client with its key. */
async function newBot(server: TestServer, shortName: string): Promise<ApiClient> {
  const hamlet = await server.as('hamlet@zulip.com');
  const created = await hamlet.post('/bots', { full_name: `Bot ${shortName}`, short_name: shortName });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const user = (await hamlet.get(`/users/${created.body.user_id as number}`)).body.user as { email: string };
  return server.anonymous.withCredentials({ email: user.email, apiKey: created.body.api_key as string });
}

const put = (bot: ApiClient, stored: Params | string) => bot.call('PUT', '/bot_storage', { storage: stored });
const stored = async (bot: ApiClient, keys?: string[]): Promise<Record<string, string>> => {
  const response = await bot.get('/bot_storage', keys === undefined ? {} : { keys });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return response.body.storage as Record<string, string>;
};
const assertRefused = (response: ApiResponse, msg: string, label = msg) =>
  assert.equal([response.status, response.body.result, response.body.code, response.body.msg], [400, 'error', 'BAD_REQUEST', msg], label);

storage('a bot puts, gets all or some of its keys, replaces and removes them', async ({ server }) => {
  const bot = await newBot(server, 'keeper');
  assert.equal(await stored(bot), {}, 'a new bot stores nothing');
  assert.equal((await put(bot, { 'key 1': 'value 1', 'key 2': 'value 2', 'key 3': 'value 3' })).body, { result: 'success', msg: '' });
  assert.equal(await stored(bot, ['key 1', 'key 3']), { 'key 1': 'value 1', 'key 3': 'value 3' });
  assert.equal(await stored(bot, []), {}, 'no keys asked, none answered');
  assert.is((await put(bot, { 'key 1': 'new value', 'key 4': 'value 4' })).status, 200);
  assert.equal(await stored(bot), { 'key 1': 'new value', 'key 2': 'value 2', 'key 3': 'value 3', 'key 4': 'value 4' });

  // Any text is a key: empty, "__proto__", emoji, and longer than an LMDB key can hold.
  const long = `${'k'.repeat(3000)}🙂`;
  assert.is((await put(bot, `{"": "empty", "__proto__": "not a prototype", "🙂": "smile", ${JSON.stringify(long)}: "long"}`)).status, 200);
  const odd = await stored(bot, ['', '__proto__', '🙂', long]);
  assert.equal(Object.entries(odd), [['', 'empty'], ['__proto__', 'not a prototype'], ['🙂', 'smile'], [long, 'long']]);

  assert.equal((await bot.delete('/bot_storage', { keys: ['key 1', 'key 2', long] })).body, { result: 'success', msg: '' });
  assert.equal(Object.keys(await stored(bot)).sort(), ['', '__proto__', 'key 3', 'key 4', '🙂']);
  assert.is((await bot.delete('/bot_storage', { keys: [] })).status, 200);
  assert.is(Object.keys(await stored(bot)).length, 5, 'an empty list removes nothing');
  assert.is((await bot.delete('/bot_storage')).status, 200);
  assert.equal(await stored(bot), {}, 'without keys, everything is removed');
});

storage('a key the bot does not hold refuses the get and the delete; nothing is removed', async ({ server }) => {
  const bot = await newBot(server, 'missing');
  await put(bot, { kept: 'yes', also: 'kept' });
  assertRefused(await bot.get('/bot_storage', { keys: ['kept', 'nonexistent key'] }), 'Key does not exist.');
  assertRefused(await bot.delete('/bot_storage', { keys: ['kept', 'nonexistent key'] }), 'Key does not exist.');
  assert.equal(await stored(bot), { kept: 'yes', also: 'kept' });
});

storage('values must be strings (Zulip\'s validation errors) and a refused put stores none of its entries', async ({ server }) => {
  const bot = await newBot(server, 'strict');
  for (const [value, msg] of [
    ['{"ok": "fine", "foo": [1, 2, 3]}', 'storage["foo"] is not a string'],
    ['{"ok": "fine", "foo": 5}', 'storage["foo"] is not a string'],
    ['{"ok": "fine", "foo": null}', 'storage["foo"] is not a string'],
    ['{"ok": "fine", "foo": true}', 'storage["foo"] is not a string'],
    ['{"ok": "fine", "foo": {"bar": "baz"}}', 'storage["foo"] is not a string'],
    ['["ok"]', 'storage is not a dict'],
    ['not json', 'Argument "storage" is not valid JSON.'],
  ] as const) {
    assertRefused(await put(bot, value), msg, value);
  }
  assert.equal([(await bot.call('PUT', '/bot_storage')).body.code, (await bot.call('PUT', '/bot_storage')).body.msg], ['REQUEST_VARIABLE_MISSING', "Missing 'storage' argument"]);
  assertRefused(await bot.get('/bot_storage', { keys: '"ok"' }), 'keys is not a list');
  assert.equal(await stored(bot), {}, 'nothing stored');
});

storage('a bot holds at most 10,000,000 characters of keys and values; a put beyond changes nothing', async (context) => {
  const bot = await newBot(context.server, 'filler');
  // Three puts (a body is at most 4 MiB) fill the storage to exactly the limit.
  const third = Math.floor(LIMIT / 3);
  assert.is((await put(bot, { a: 'x'.repeat(third - 1) })).status, 200);
  assert.is((await put(bot, { b: 'x'.repeat(third - 1) })).status, 200);
  assert.is((await put(bot, { c: 'x'.repeat(LIMIT - 2 * third - 1) })).status, 200, 'exactly at the limit');
  assertRefused(await put(bot, { d: 'y' }), 'Request exceeds storage limit by 2 characters. The limit is 10000000 characters.');
  assertRefused(await put(bot, { b: 'x'.repeat(third), d: 'y' }), 'Request exceeds storage limit by 3 characters. The limit is 10000000 characters.', 'a replaced value counts at its new size');
  assertRefused(await bot.get('/bot_storage', { keys: ['d'] }), 'Key does not exist.', 'the refused put stored nothing');
  assert.is((await stored(bot, ['b'])).b!.length, third - 1, 'nor replaced anything');

  // A value replaced by a shorter one frees what it held; an emoji is one character, as in Zulip.
  assert.is((await put(bot, { c: 'x'.repeat(LIMIT - 2 * third - 11), d: '12345678' })).status, 200);
  assert.is((await put(bot, { '🙂': '' })).status, 200, 'back at the limit: the emoji is one character');
  assertRefused(await put(bot, { e: '' }), 'Request exceeds storage limit by 1 characters. The limit is 10000000 characters.');

  // Removed keys free their characters.
  assert.is((await bot.delete('/bot_storage', { keys: ['a', 'd'] })).status, 200);
  assert.is((await put(bot, { a: 'x'.repeat(third - 1), d: '12345678' })).status, 200);
  assertRefused(await put(bot, { e: '' }), 'Request exceeds storage limit by 1 characters. The limit is 10000000 characters.');
  context.full = bot;
});

storage("a bot never sees another bot's storage; people have none", async ({ server }) => {
  const [first, second] = [await newBot(server, 'first'), await newBot(server, 'second')];
  await put(first, { shared: 'first', mine: 'first only' });
  await put(second, { shared: 'second' });
  assert.equal(await stored(first), { shared: 'first', mine: 'first only' });
  assert.equal(await stored(second), { shared: 'second' });
  assertRefused(await second.get('/bot_storage', { keys: ['mine'] }), 'Key does not exist.');
  assertRefused(await second.delete('/bot_storage', { keys: ['mine'] }), 'Key does not exist.');
  assert.is((await second.delete('/bot_storage')).status, 200);
  assert.equal(await stored(first), { shared: 'first', mine: 'first only' }, "removing all of one's own leaves the other's");

  const hamlet = await server.as('hamlet@zulip.com');
  for (const response of [await hamlet.get('/bot_storage'), await put(hamlet, {}), await hamlet.delete('/bot_storage')]) assertRefused(response, 'Must be a bot user');
});

storage('a deactivated bot keeps its storage', async ({ server }) => {
  const bot = await newBot(server, 'sleeper');
  await put(bot, { state: 'kept' });
  const iago = await server.as('iago@zulip.com');
  const botId = (await bot.get('/users/me')).body.user_id as number;
  assert.is((await bot.delete('/users/me')).status, 200);
  assert.is((await bot.get('/bot_storage')).status, 401, 'its key no longer works');
  assert.is((await iago.post(`/users/${botId}/reactivate`)).status, 200);
  assert.equal(await stored(bot), { state: 'kept' });
});

storage('the endpoints require credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [['GET', '/bot_storage'], ['PUT', '/bot_storage'], ['DELETE', '/bot_storage']]);
});

storage('storage and its size are kept across a restart on the same data', async (context) => {
  await context.server.parley.close();
  context.restarted = await startParley(context.server.config);
  const again = new ApiClient(`http://127.0.0.1:${context.restarted.http.port}`, context.full!.credentials);
  assert.equal(await stored(again, ['🙂', 'd']), { '🙂': '', d: '12345678' });
  assertRefused(await put(again, { e: '' }), 'Request exceeds storage limit by 1 characters. The limit is 10000000 characters.', 'the size was kept too');
});

storage.run();
