// Importing an export written by Zulip itself: test/reference/zulip-export is a small organization
// in the exact layout of Zulip's `manage.py export` (its tables and fields, the ones Parley ignores
// included: audit log, onboarding steps, analytics, authentication methods…). Imported, it is
// served like any realm: its users, channel, subscriptions, messages with Zulip's rendered HTML
// (IDs re-mapped), flags, reactions, groups, profile fields and settings. An import that would
// overwrite a realm, or of an export that is not whole, is refused and changes nothing. A row of
// someone who never subscribed (starred from the channel's history) goes when its message does.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { devClient, tempDataDir } from '../helpers/operator.js';
import { runManage, spawnServer } from '../helpers/process.js';
import { damagedExport, dataDirContents, zulipExportFixture as fixture } from '../helpers/zulipFixture.js';
import { assertMatchesReference, specUserFields } from '../helpers/reference.js';

type Row = Record<string, unknown>;

interface User {
  user_id: number;
  email: string;
  full_name: string;
  role: number;
  is_active: boolean;
  is_bot: boolean;
  bot_owner_id?: number | null;
  timezone: string;
  profile_data?: Record<string, { value: string }>;
}
interface Message {
  id: number;
  sender_id: number;
  sender_full_name: string;
  content: string;
  subject: string;
  timestamp: number;
  flags: string[];
  client: string;
  display_recipient: string | { id: number }[];
  reactions: { emoji_name: string; user_id: number }[];
}

test('an export written by Zulip imports and is served like any realm', async () => {
  const dataDir = tempDataDir();
  const imported = runManage(['import', '--from', fixture, '--subdomain', 'zephyr'], { PARLEY_DATA_DIR: dataDir });
  assert.is(imported.status, 0, imported.stderr);
  const summary = JSON.parse(imported.stdout) as Record<string, unknown>;
  assert.equal({ ...summary, skipped_linkifiers: (summary.skipped_linkifiers as string[]).length }, { realm_id: 1, subdomain: 'zephyr', users: 4, channels: 1, messages: 4, skipped_linkifiers: 1 });
  assert.match((summary.skipped_linkifiers as string[])[0]!, /^\(\?<!\[a-z\]\)JIRA-/, 'a Python lookbehind RE2 cannot take is left out, and named');
  const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'development' });
  try {
    const iris = await devClient(server.baseUrl, 'iris@zephyr.example');
    const jon = await devClient(server.baseUrl, 'jon@zephyr.example');
    const usersBody = (await iris.get('/users', { include_custom_profile_fields: true })).body;
    assertMatchesReference('GET /users', usersBody, { ...specUserFields, at: ['members[]'] });
    const users = new Map((usersBody.members as User[]).map((user) => [user.email, user]));
    const id = (email: string) => users.get(email)!.user_id;
    assert.equal(
      [...users.values()].filter((user) => !/^(notification|welcome)-bot@/.test(user.email)).map(({ email, full_name, role, is_active, is_bot, timezone }) => ({ email, full_name, role, is_active, is_bot, timezone })),
      [
        { email: 'iris@zephyr.example', full_name: 'Iris Owner', role: 100, is_active: true, is_bot: false, timezone: 'America/New_York' },
        { email: 'jon@zephyr.example', full_name: 'Jon Doe', role: 400, is_active: true, is_bot: false, timezone: 'Europe/Berlin' },
        { email: 'kim@zephyr.example', full_name: 'Kim Guest', role: 600, is_active: false, is_bot: false, timezone: '' },
        { email: 'helper-bot@zephyrco.zulipchat.com', full_name: 'Helper', role: 400, is_active: true, is_bot: true, timezone: '' },
      ],
    );
    assert.is(users.get('helper-bot@zephyrco.zulipchat.com')!.bot_owner_id, id('iris@zephyr.example'));
    const fields = (await iris.get('/realm/profile_fields')).body.custom_fields as { id: number; name: string; hint: string }[];
    assert.equal(fields.map(({ name, hint }) => ({ name, hint })), [{ name: 'Phone', hint: 'Work number' }]);
    assert.equal(users.get('jon@zephyr.example')!.profile_data, { [String(fields[0]!.id)]: { value: '+49 30 1234', rendered_value: '<p>+49 30 1234</p>' } });

    const messagesBody = (await jon.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: [] })).body;
    assertMatchesReference('GET /messages', messagesBody);
    const messages = messagesBody.messages as Message[];
    assert.equal(
      messages.map(({ sender_full_name, subject, content, timestamp, flags, client }) => ({ sender_full_name, subject, content, timestamp, flags, client })),
      [
        {
          sender_full_name: 'Iris Owner',
          subject: 'deploys',
          content: `<p><span class="user-mention" data-user-id="${id('jon@zephyr.example')}">@Jon Doe</span> the build is green</p>`,
          timestamp: 1700000100,
          flags: ['mentioned'],
          client: 'website',
        },
        { sender_full_name: 'Jon Doe', subject: '', content: '<p>Thanks!</p>', timestamp: 1700000200, flags: ['read', 'starred'], client: 'ZulipMobile' },
        // A message of Zulip's welcome bot stays Welcome Bot's (the realm's own).
        { sender_full_name: 'Welcome Bot', subject: '', content: '<p>Welcome to Zulip!</p>', timestamp: 1699990002, flags: ['read'], client: 'Internal' },
        { sender_full_name: 'Jon Doe', subject: 'deploys', content: '<p><strong>Second</strong> try</p>', timestamp: 1700000300, flags: ['read'], client: 'website' },
      ],
    );
    assert.equal(messages[0]!.reactions.map(({ emoji_name, user_id }) => ({ emoji_name, user_id })), [{ emoji_name: 'thumbs_up', user_id: id('iris@zephyr.example') }]);
    assert.equal((messages[1]!.display_recipient as { id: number }[]).map((user) => user.id).sort(), [id('iris@zephyr.example'), id('jon@zephyr.example')].sort());
    const history = (await jon.get(`/messages/${messages[3]!.id}/history`)).body.message_history as { content: string }[];
    assert.equal(history.map((entry) => entry.content), ['Second', '**Second** try'], 'the edit history came along');
    const irisUnread = (await iris.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 100, narrow: [{ operator: 'is', operand: 'unread' }] })).body.messages as Message[];
    assert.equal(irisUnread.map((message) => message.content), ['<p>Thanks!</p>', '<p><strong>Second</strong> try</p>']);

    const subscriptions = (await jon.get('/users/me/subscriptions', { include_subscribers: true })).body.subscriptions as Record<string, unknown>[];
    assert.is(subscriptions.length, 1);
    const [engineering] = subscriptions;
    assert.equal(
      { name: engineering!.name, description: engineering!.description, color: engineering!.color, pin_to_top: engineering!.pin_to_top, desktop: engineering!.desktop_notifications, push: engineering!.push_notifications, invite_only: engineering!.invite_only },
      { name: 'engineering', description: 'Build **things**', color: '#e79ab5', pin_to_top: true, desktop: true, push: false, invite_only: false },
    );
    // Kim's subscription came along, but a deactivated user is not listed as a subscriber.
    assert.equal((engineering!.subscribers as number[]).sort(), [id('iris@zephyr.example'), id('jon@zephyr.example')].sort());
    assert.equal(engineering!.can_administer_channel_group, { direct_members: [id('iris@zephyr.example')], direct_subgroups: [] });

    const groups = (await iris.get('/user_groups')).body.user_groups as { id: number; name: string; members: number[]; can_manage_group: number; is_system_group: boolean }[];
    const backend = groups.find((group) => group.name === 'backend')!;
    assert.equal(backend.members, [id('jon@zephyr.example')]);
    assert.is(backend.can_manage_group, groups.find((group) => group.name === 'role:administrators')!.id);
    assert.is(groups.filter((group) => group.is_system_group).length, 8, 'the system groups are the realm’s own, not copies');

    const register = (await iris.post('/register', { fetch_event_types: ['realm', 'default_streams', 'alert_words', 'realm_linkifiers', 'user_status'], client_capabilities: { linkifier_url_template: true } })).body;
    assert.equal((register.realm_linkifiers as { pattern: string; url_template: string }[]).map(({ pattern, url_template }) => ({ pattern, url_template })), [{ pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zephyr/app/issues/{id}' }]);
    assert.equal(register.user_status, { [String(id('jon@zephyr.example'))]: { status_text: 'On call', emoji_name: 'phone', emoji_code: '1f4de', reaction_type: 'unicode_emoji' } });
    assert.equal(
      { name: register.realm_name, description: register.realm_description, language: register.realm_default_language, digest: register.realm_digest_emails_enabled, weekday: register.realm_digest_weekday, waiting: register.realm_waiting_period_threshold, editLimit: register.realm_message_content_edit_limit_seconds, codeLanguage: register.realm_default_code_block_language },
      { name: 'Zephyr Co', description: 'Where the **wind** blows', language: 'de', digest: true, weekday: 4, waiting: 5, editLimit: 3600, codeLanguage: 'python' },
    );
    assert.equal(register.realm_default_streams, [engineering!.stream_id]);
    assert.equal([register.realm_new_stream_announcements_stream_id, register.realm_signup_announcements_stream_id, register.realm_message_retention_days], [engineering!.stream_id, -1, -1]);
    assert.equal((await jon.get('/users/me/alert_words')).body.alert_words, ['outage']);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('import refuses an existing subdomain and an export whose rows point nowhere, and changes nothing', () => {
  const dataDir = tempDataDir();
  const broken = damagedExport('messages-000001.json', (data) => ((data.zerver_message![0] as Record<string, unknown>).sender = 99));
  try {
    assert.is(runManage(['import', '--from', fixture, '--subdomain', 'zephyr'], { PARLEY_DATA_DIR: dataDir }).status, 0);
    const before = dataDirContents(dataDir, 'zephyr');
    const again = runManage(['import', '--from', fixture, '--subdomain', 'zephyr'], { PARLEY_DATA_DIR: dataDir });
    assert.is(again.status, 2);
    assert.match(again.stderr, /a realm with subdomain 'zephyr' exists; import makes a new realm/);
    const dangling = runManage(['import', '--from', broken, '--subdomain', 'other'], { PARLEY_DATA_DIR: dataDir });
    assert.is(dangling.status, 2);
    assert.match(dangling.stderr, /messages-000001\.json: message 100 is from user 99, who is not in the export/);
    assert.equal(dataDirContents(dataDir, 'zephyr'), before, 'the data directory is unchanged');
  } finally {
    for (const dir of [dataDir, dirname(broken)]) rmSync(dir, { recursive: true, force: true });
  }
});

test('an imported historical row goes with its message when the message is deleted', async () => {
  // Jon never subscribed to #engineering; he starred message 100 from its public history.
  const exported = damagedExport('realm.json', (data) => {
    data.zerver_subscription = data.zerver_subscription!.filter((row) => (row as Row).id !== 6);
  });
  const file = join(exported, 'messages-000001.json');
  const data = JSON.parse(readFileSync(file, 'utf8')) as { zerver_usermessage: Row[] };
  for (const row of data.zerver_usermessage) if (row.user_profile === 11 && (row.message === 100 || row.message === 103)) row.flags_mask = row.message === 100 ? 1 | 2 | 1024 : 1 | 1024;
  writeFileSync(file, JSON.stringify(data));
  const dataDir = tempDataDir();
  const imported = runManage(['import', '--from', exported, '--subdomain', 'zephyr'], { PARLEY_DATA_DIR: dataDir });
  assert.is(imported.status, 0, imported.stderr);
  const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'development' });
  try {
    const iris = await devClient(server.baseUrl, 'iris@zephyr.example');
    const jon = await devClient(server.baseUrl, 'jon@zephyr.example');
    const starred = await jon.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: JSON.stringify([['is', 'starred']]) });
    const [message] = starred.body.messages as { id: number; flags: string[] }[];
    assert.ok(message, JSON.stringify(starred.body));
    assert.equal([...message!.flags].sort(), ['historical', 'read', 'starred']);
    assert.is((await iris.delete(`/messages/${message!.id}`)).status, 200);
    const window = await jon.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: '[]' });
    assert.is(window.status, 200, JSON.stringify(window.body));
    assert.not.ok((window.body.messages as { id: number }[]).some((m) => m.id === message!.id));
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(dirname(exported), { recursive: true, force: true });
  }
});

test.run();
