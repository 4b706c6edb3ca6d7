// Moving a realm in Zulip's export format: `manage export` writes a realm (while its server runs)
// in the layout of Zulip's `manage.py export`, `manage import` makes a new realm of it in a fresh
// data directory, and the imported realm answers its users' requests as the original does — the
// same users, channels, subscriptions, messages with their flags and reactions, groups, profile
// fields and settings — once IDs are compared through what names them.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiClient } from '../helpers/client.js';
import { devClient, tempDataDir } from '../helpers/operator.js';
import { runManage, runManageAsync, spawnServer, type ServerProcess } from '../helpers/process.js';
import { namesOf, rename, type Names } from '../helpers/sameRealm.js';

const people = [
  { email: 'owner@acme.example', name: 'Olivia Owner', role: 'owner' },
  { email: 'admin@acme.example', name: 'Adam Admin', role: 'administrator' },
  { email: 'mod@acme.example', name: 'Mona Moderator', role: 'moderator' },
  { email: 'ann@acme.example', name: 'Ann Member', role: 'member' },
  { email: 'bob@acme.example', name: 'Bob Member', role: 'member' },
  { email: 'gus@acme.example', name: 'Gus Guest', role: 'guest' },
];
/** Who can still log in after the setup (Bob is deactivated). */
const readers = people.filter((person) => person.email !== 'bob@acme.example').map((person) => person.email);
/** The notification bot's address names the realm's host, which differs after the move. */
const sameAcrossRealms = (email: string): string => email.replace(/@(acme|moved)\.localhost$/, '@realm.localhost');

/** What the realm's bot keeps in its storage (zerver_botstoragedata). */
const helperStorage = { counter: '3', '🙂': 'smile' };

/** The bot's storage, read with its key as its owner sees it (imported users get new keys). */
async function storageOfHelper(owner: ApiClient): Promise<unknown> {
  const bots = (await owner.post('/register', { fetch_event_types: ['realm_bot'] })).body.realm_bots as { email: string; api_key: string }[];
  const helper = bots.find((bot) => bot.email.startsWith('helper-bot@'))!;
  return (await owner.withCredentials({ email: helper.email, apiKey: helper.api_key }).get('/bot_storage')).body.storage;
}

/** A realm with a bit of everything an export carries, made through the API. */
async function populate(baseUrl: string): Promise<void> {
  // Everyone logs in before the export: a first login fixes date_joined, which the export carries
  // (a first login after it would come at another second on each server).
  const [owner, admin, mod, ann, bob] = await Promise.all(people.map((person) => devClient(baseUrl, person.email)));
  const ids = new Map(((await owner!.get('/users')).body.members as { user_id: number; delivery_email: string }[]).map((user) => [user.delivery_email, user.user_id]));
  const id = (email: string) => ids.get(email)!;
  const ok = async (response: Promise<{ status: number; body: Record<string, unknown> }>) => {
    const answer = await response;
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };
  await ok(owner!.post('/users/me/subscriptions', { subscriptions: [{ name: 'general', description: 'All of **us**' }], principals: people.map((person) => person.email) }));
  await ok(owner!.post('/users/me/subscriptions', { subscriptions: [{ name: 'secret', description: 'Plans' }], invite_only: true, principals: ['owner@acme.example', 'admin@acme.example', 'ann@acme.example'] }));
  const streams = (await ok(owner!.get('/streams', { include_all: true }))).streams as { stream_id: number; name: string }[];
  const general = streams.find((stream) => stream.name === 'general')!.stream_id;
  await ok(
    ann!.post('/users/me/subscriptions/properties', {
      subscription_data: [
        { stream_id: general, property: 'color', value: '#123456' },
        { stream_id: general, property: 'pin_to_top', value: true },
        { stream_id: general, property: 'desktop_notifications', value: true },
      ],
    }),
  );
  const send = async (client: ApiClient, params: Record<string, unknown>) => Number((await ok(client.post('/messages', params))).id);
  const first = await send(ann!, { type: 'stream', to: 'general', topic: 'alpha', content: 'Hello **everyone**' });
  await send(admin!, { type: 'stream', to: 'general', topic: 'beta', content: 'A second topic, with `code`' });
  const third = await send(bob!, { type: 'stream', to: 'general', topic: 'alpha', content: 'Bob was here' });
  await send(owner!, { type: 'stream', to: 'secret', topic: 'plans', content: 'Private plans' });
  const dm = await send(ann!, { type: 'private', to: [id('admin@acme.example')], content: 'Just between us' });
  await send(ann!, { type: 'private', to: [id('admin@acme.example'), id('mod@acme.example')], content: 'The three of us' });
  const bot = await ok(owner!.post('/bots', { full_name: 'Helper Bot', short_name: 'helper', bot_type: 1 }));
  const botEmail = String(((await ok(owner!.get(`/users/${String(bot.user_id)}`))).user as { email: string }).email);
  const helper = owner!.withCredentials({ email: botEmail, apiKey: String(bot.api_key) });
  await send(helper, { type: 'stream', to: 'general', topic: 'alpha', content: 'Beep' });
  // A poll and a vote: the widget's submessages travel with the message.
  const poll = await send(ann!, { type: 'stream', to: 'general', topic: 'lunch', content: '/poll Lunch?\nPizza\nSushi', read_by_sender: true });
  await ok(bob!.post('/submessage', { message_id: poll, msg_type: 'widget', content: JSON.stringify({ type: 'vote', key: 'canned,1', vote: 1 }) }));
  await ok(helper.call('PUT', '/bot_storage', { storage: helperStorage }));

  await ok(ann!.post('/messages/flags', { messages: [first], op: 'add', flag: 'starred' }));
  await ok(ann!.post('/messages/flags', { messages: [first, third], op: 'add', flag: 'read' }));
  await ok(admin!.post('/messages/flags', { messages: [dm], op: 'add', flag: 'read' }));
  await ok(admin!.post(`/messages/${first}/reactions`, { emoji_name: 'smile' }));
  await ok(mod!.post(`/messages/${first}/reactions`, { emoji_name: 'heart' }));

  const leads = Number((await ok(admin!.post('/user_groups/create', { name: 'leads', description: 'Team leads', members: [id('admin@acme.example')] }))).group_id);
  await ok(admin!.post('/user_groups/create', { name: 'devs', description: 'Developers', members: [id('ann@acme.example'), id('bob@acme.example')], subgroups: [leads] }));

  const team = Number((await ok(owner!.post('/realm/profile_fields', { name: 'Team', hint: 'Where you work', field_type: 1 }))).id);
  const shirt = Number((await ok(owner!.post('/realm/profile_fields', { name: 'Shirt', field_type: 3, field_data: { s: { text: 'Small', order: '1' }, l: { text: 'Large', order: '2' } } }))).id);
  await ok(ann!.patch('/users/me/profile_data', { data: [{ id: team, value: 'Platform' }, { id: shirt, value: 'l' }] }));

  await ok(owner!.post('/realm/filters', { pattern: 'T(?P<id>[0-9]+)', url_template: 'https://tickets.example/{id}' }));
  await ok(mod!.post('/users/me/status', { status_text: 'Reviewing', emoji_name: 'eyes' }));
  await ok(owner!.patch('/realm', { description: 'Where **Acme** talks', digest_emails_enabled: true, waiting_period_threshold: 3, default_language: 'de', signup_announcements_stream_id: general, new_stream_announcements_stream_id: general }));
  await ok(ann!.post('/user_topics', { stream_id: general, topic: 'beta', visibility_policy: 1 }));
  await ok(ann!.post('/users/me/alert_words', { alert_words: ['deploy', 'outage'] }));
  await ok(admin!.post(`/users/me/muted_users/${id('gus@acme.example')}`));
  await ok(owner!.delete(`/users/${id('bob@acme.example')}`));
}

/** Everything the test compares, as one user sees it, with IDs named. */
async function view(client: ApiClient, names: Names, admin: boolean): Promise<Record<string, unknown>> {
  const named = (value: unknown, kind?: keyof Names) => rename(value, names, kind);
  const byKey = (key: string) => (a: Record<string, unknown>, b: Record<string, unknown>) => String(a[key]).localeCompare(String(b[key]));
  const messages = async (narrow: unknown[]) =>
    named((await client.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 1000, narrow, client_gravatar: true })).body.messages, 'messages');
  const register = (await client.post('/register', { fetch_event_types: ['realm', 'realm_user_groups', 'custom_profile_fields', 'realm_linkifiers', 'user_status', 'user_topic', 'alert_words', 'muted_users'], client_gravatar: true, client_capabilities: { linkifier_url_template: true } })).body;
  const personal = new Set(['user_status', 'user_topics', 'alert_words', 'muted_users']);
  const realmSettings = Object.fromEntries(Object.entries(register).filter(([key]) => (key.startsWith('realm_') && key !== 'realm_user_groups') || personal.has(key)));
  return {
    users: ((named((await client.get('/users', { client_gravatar: true, include_custom_profile_fields: true })).body.members) as Record<string, unknown>[]).sort(byKey('user_id'))),
    streams: (named((await client.get('/streams', admin ? { include_all: true } : {})).body.streams) as Record<string, unknown>[]).sort(byKey('name')),
    subscriptions: (named((await client.get('/users/me/subscriptions', { include_subscribers: true })).body.subscriptions) as Record<string, unknown>[]).sort(byKey('name')),
    all: await messages([]),
    alpha: await messages([{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: 'alpha' }]),
    starred: await messages([{ operator: 'is', operand: 'starred' }]),
    unread: await messages([{ operator: 'is', operand: 'unread' }]),
    dms: await messages([{ operator: 'is', operand: 'dm' }]),
    groups: (named((await client.get('/user_groups')).body.user_groups, 'groups') as Record<string, unknown>[]).sort(byKey('id')),
    fields: named((await client.get('/realm/profile_fields')).body.custom_fields, 'fields'),
    realm: named(realmSettings),
  };
}

/** What Ann sees is what the setup made (so that the comparison compares something). */
function seenByAnn(view: Record<string, unknown>): void {
  type Seen = Record<string, unknown>;
  const list = (key: string) => view[key] as Seen[];
  assert.equal(list('starred').map((message) => message.content), ['<p>Hello <strong>everyone</strong></p>']);
  assert.equal(list('unread').length, 5, 'all but the two messages marked read');
  assert.equal(list('dms').map((message) => message.content), ['<p>Just between us</p>', '<p>The three of us</p>']);
  assert.equal((list('all')[0]!.reactions as Seen[]).map((reaction) => [reaction.emoji_name, reaction.user_id]), [['smile', 'admin@acme.example'], ['heart', 'mod@acme.example']]);
  const poll = list('all').find((message) => String(message.content).includes('Lunch'))!;
  assert.equal((poll.submessages as Seen[]).map((submessage) => [submessage.sender_id, JSON.parse(String(submessage.content)).type ?? JSON.parse(String(submessage.content)).widget_type]), [['ann@acme.example', 'poll'], ['bob@acme.example', 'vote']]);
  const general = list('subscriptions').find((subscription) => subscription.name === 'general')!;
  assert.equal([general.color, general.pin_to_top, general.desktop_notifications], ['#123456', true, true]);
  const devs = list('groups').find((group) => group.id === 'devs')!;
  assert.equal([devs.members, devs.direct_subgroup_ids], [['ann@acme.example', 'bob@acme.example'], ['leads']]);
  const ann = list('users').find((user) => user.user_id === 'ann@acme.example')!;
  assert.equal(ann.profile_data, { Team: { value: 'Platform', rendered_value: '<p>Platform</p>' }, Shirt: { value: 'l' } });
  assert.equal(list('users').find((user) => user.user_id === 'bob@acme.example')!.is_active, false);
  const realm = view.realm as Seen;
  assert.equal(realm.alert_words, ['deploy', 'outage']);
  assert.equal((realm.user_topics as Seen[]).map((topic) => [topic.stream_id, topic.topic_name, topic.visibility_policy]), [['general', 'beta', 1]]);
  assert.equal((realm.realm_linkifiers as Seen[]).map((linkifier) => linkifier.pattern), ['T(?P<id>[0-9]+)']);
  assert.equal(realm.user_status, { 'mod@acme.example': { status_text: 'Reviewing', emoji_name: 'eyes', emoji_code: '1f440', reaction_type: 'unicode_emoji' } });
  assert.equal([realm.realm_description, realm.realm_digest_emails_enabled, realm.realm_waiting_period_threshold, realm.realm_default_language], ['Where **Acme** talks', true, 3, 'de']);
  assert.equal([realm.realm_signup_announcements_stream_id, realm.realm_new_stream_announcements_stream_id], ['general', 'general']);
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

test('a realm exported while its server runs imports into a fresh data directory and answers as the original', async () => {
  const original = tempDataDir();
  const moved = tempDataDir();
  const exports = tempDataDir();
  const exportDir = join(exports, 'acme-export');
  const env = { PARLEY_DATA_DIR: original };
  const created = runManage(['create-realm', '--subdomain', 'acme', '--name', 'Acme', '--owner-email', people[0]!.email, '--owner-name', people[0]!.name], env);
  assert.is(created.status, 0, created.stderr);
  for (const person of people.slice(1)) assert.is(runManage(['create-user', '--realm', 'acme', '--email', person.email, '--name', person.name, '--role', person.role], env).status, 0);
  const before = await spawnServer({ ...env, PARLEY_MODE: 'development' });
  let after: ServerProcess | undefined;
  try {
    await populate(before.baseUrl);
    const summary = JSON.parse(await runManageAsync(['export', '--realm', 'acme', '--to', exportDir], env)) as { messages: number; tarball: string };
    assert.is(summary.messages, 8);
    assert.ok(existsSync(summary.tarball), 'a .tar.gz beside the directory');

    // Zulip's layout: realm.json's tables, the messages with their UserMessage rows, float dates.
    const realmJson = JSON.parse(readFileSync(join(exportDir, 'realm.json'), 'utf8')) as Record<string, Record<string, unknown>[]>;
    for (const table of ['zerver_realm', 'zerver_userprofile', 'zerver_recipient', 'zerver_stream', 'zerver_subscription', 'zerver_huddle', 'zerver_usergroup', 'zerver_namedusergroup', 'zerver_usergroupmembership', 'zerver_groupgroupmembership', 'zerver_customprofilefield', 'zerver_customprofilefieldvalue', 'zerver_reaction']) {
      assert.ok(Array.isArray(realmJson[table]), table);
    }
    assert.is(realmJson.zerver_huddle!.length, 1, 'the group direct message');
    assert.is(realmJson.zerver_reaction!.length, 2);
    assert.not.ok(JSON.stringify(realmJson.zerver_userprofile).includes('api_key'), 'no secrets');
    assert.equal(realmJson.zerver_botstoragedata!.map((row) => [row.key, row.value]).sort(), Object.entries(helperStorage).sort(), "the bot's storage");
    const messagesJson = JSON.parse(readFileSync(join(exportDir, 'messages-000001.json'), 'utf8')) as { zerver_message: { date_sent: unknown; subject: string }[]; zerver_usermessage: { flags_mask: number }[] };
    assert.is(messagesJson.zerver_message.length, 8);
    assert.is(typeof messagesJson.zerver_message[0]!.date_sent, 'number');
    assert.ok(messagesJson.zerver_usermessage.some((row) => (row.flags_mask & 3) === 3), 'a starred, read row');
    for (const dir of ['uploads', 'avatars', 'emoji']) assert.equal(JSON.parse(readFileSync(join(exportDir, dir, 'records.json'), 'utf8')), []);

    const imported = runManage(['import', '--from', summary.tarball, '--subdomain', 'moved'], { PARLEY_DATA_DIR: moved });
    assert.is(imported.status, 0, imported.stderr);
    assert.is((JSON.parse(imported.stdout) as { messages: number }).messages, 8);
    after = await spawnServer({ PARLEY_DATA_DIR: moved, PARLEY_MODE: 'development' });

    const clientsBefore = await Promise.all(readers.map((email) => devClient(before.baseUrl, email)));
    const clientsAfter = await Promise.all(readers.map((email) => devClient(after!.baseUrl, email)));
    const namesBefore = await namesOf(clientsBefore[0]!, clientsBefore, sameAcrossRealms);
    const namesAfter = await namesOf(clientsAfter[0]!, clientsAfter, sameAcrossRealms);
    assert.is(namesAfter.messages.size, 8);
    for (const [index, email] of readers.entries()) {
      const admin = index < 2;
      const after = await view(clientsAfter[index]!, namesAfter, admin);
      assert.equal(after, await view(clientsBefore[index]!, namesBefore, admin), `as ${email}`);
      if (email === 'ann@acme.example') seenByAnn(after);
    }
    assert.equal(await storageOfHelper(clientsAfter[0]!), helperStorage, "the bot's storage, imported");
    for (const [index, client] of clientsAfter.entries()) assert.is.not(client.credentials!.apiKey, clientsBefore[index]!.credentials!.apiKey, 'imported users get new API keys');
  } finally {
    await stop(before);
    if (after) await stop(after);
    for (const dir of [original, moved, exports]) rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
