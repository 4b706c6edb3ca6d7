// Data exports over the API: an administrator's request is answered at once with the export
// pending, the export is written after the commit while the realm goes on answering, and
// `realm_export` events (pending, then done with its URL) reach the administrators; the tarball is
// Zulip's export format, downloadable by administrators; a public export carries no private
// message, a standard one (owners only) those of the users who consented; exports are listed,
// deleted, refused as Zulip refuses them, and a restart writes one left pending.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { x as extract } from 'tar';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { importRealm, type ImportSummary } from '../src/cli/zulipImport.js';
import { LocalFileStorage } from '../src/files/local.js';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { download } from './helpers/files.js';
import { register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference } from './helpers/reference.js';
import { TestClock } from './helpers/clock.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/** The file storage of the test server, which can hold an export's tarball at the door until the
 * test lets it in (an export that takes as long as the test needs). */
class HeldStorage extends LocalFileStorage {
  private held: { release: () => void; reached: () => void; gate: Promise<void> } | undefined;

  /** Holds the next export's tarball; resolves once the export has reached the storage. */
  hold(): { reached: Promise<void>; release: () => void } {
    let release!: () => void;
    let reached!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const arrival = new Promise<void>((resolve) => (reached = resolve));
    this.held = { release, reached, gate };
    return { reached: arrival, release };
  }

  override async put(key: string, body: Readable, contentType: string): Promise<number> {
    const held = this.held;
    if (held && key.includes('/exports/')) {
      this.held = undefined;
      held.reached();
      await held.gate;
    }
    return super.put(key, body, contentType);
  }
}

type ExportView = { id: number; acting_user_id: number; export_time: number; export_type: number; export_url: string | null; deleted_timestamp: number | null; failed_timestamp: number | null; pending: boolean };
type Context = { server: TestServer; files: HeldStorage; dataDir: string; clock: TestClock };

const exports = suite<Context>('data exports');

exports.before(async (context) => {
  context.dataDir = mkdtempSync(join(tmpdir(), 'parley-test-'));
  context.files = new HeldStorage(context.dataDir);
  context.clock = new TestClock();
  context.server = await startTestServer({ dataDir: context.dataDir, clock: context.clock }, { files: context.files });
});
exports.after(async ({ server }) => server.stop());

/** The events of a queue from `after` on, waiting (long-poll) until `enough` says they suffice. */
async function eventsUntil(client: ApiClient, queueId: string, enough: (events: Event[]) => boolean): Promise<Event[]> {
  const events: Event[] = [];
  while (!enough(events)) {
    const last = events.at(-1)?.id ?? -1;
    const answer = await client.get('/events', { queue_id: queueId, last_event_id: last });
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    events.push(...(answer.body.events as Event[]).filter((event) => event.type !== 'heartbeat' && Number(event.id) > Number(last)));
  }
  return events;
}

const exportIn = (event: Event, id: number) => (event.exports as ExportView[]).find((view) => view.id === id);
const finished = (id: number) => (events: Event[]) => events.some((event) => event.type === 'realm_export' && exportIn(event, id)?.pending === false);

/** The export's tarball, unpacked: its directory's files by name (`use` sees the directory). */
async function unpack(client: ApiClient, url: string, use?: (dir: string) => Promise<void>): Promise<Map<string, string>> {
  const served = await download(client, new URL(url).pathname);
  assert.is(served.status, 200);
  assert.is(served.type, 'application/gzip');
  const scratch = mkdtempSync(join(tmpdir(), 'parley-export-test-'));
  try {
    writeFileSync(join(scratch, 'export.tar.gz'), served.bytes);
    await extract({ file: join(scratch, 'export.tar.gz'), cwd: scratch });
    const [dir] = readdirSync(scratch).filter((name) => name.startsWith('zulip-export-'));
    assert.ok(dir, 'the tarball holds the export directory');
    await use?.(join(scratch, dir));
    return new Map(readdirSync(join(scratch, dir), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.json')).map((name) => [name, readFileSync(join(scratch, dir, name), 'utf8')]));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const contents = (files: Map<string, string>): string[] =>
  [...files].filter(([name]) => name.startsWith('messages-')).flatMap(([, text]) => (JSON.parse(text) as { zerver_message: { content: string }[] }).zerver_message.map((message) => message.content));

/** Sends what a public export must leave out: a direct message and one in a private channel. */
async function sendPrivateMessages(server: TestServer): Promise<void> {
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const cordelia = (await hamlet.get('/users/cordelia@zulip.com')).body.user as { user_id: number };
  assert.is((await hamlet.post('/messages', { type: 'direct', to: [cordelia.user_id], content: 'a word for Cordelia alone' })).status, 200);
  assert.is((await iago.post('/messages', { type: 'stream', to: 'core team', topic: 'plans', content: 'the core team plans' })).status, 200);
}

exports('an export is answered at once, written while the realm answers, announced to administrators and downloadable by them', async ({ server, files }) => {
  await sendPrivateMessages(server);
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const adminQueue = await register(iago, { event_types: ['realm_export'] });
  const memberQueue = await register(hamlet, { event_types: ['realm_export', 'message'] });
  const held = files.hold();
  const started = await iago.post('/export/realm', {});
  assertMatchesReference('POST /export/realm', started.body);
  const id = started.body.id as number;
  await held.reached;

  // The export waits at the storage; the realm answers reads and writes meanwhile.
  const listed = await iago.get('/export/realm');
  assertMatchesReference('GET /export/realm', listed.body);
  assert.equal((listed.body.exports as ExportView[]).map((view) => [view.id, view.pending, view.export_url]), [[id, true, null]]);
  assert.is((await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'meanwhile', content: 'sent while the export runs' })).status, 200);
  assert.is((await hamlet.get('/users/me')).status, 200);
  held.release();

  const events = (await eventsUntil(iago, adminQueue.queueId, finished(id))).filter((event) => event.type === 'realm_export');
  for (const event of events) assertEventMatchesReference(event);
  const [pending, done] = [exportIn(events[0]!, id)!, exportIn(events.at(-1)!, id)!];
  assert.equal([pending.pending, pending.export_url, pending.acting_user_id, pending.export_type], [true, null, (await iago.get('/users/me')).body.user_id, 1]);
  assert.equal([done.pending, done.failed_timestamp, done.deleted_timestamp], [false, null, null]);
  assert.match(done.export_url!, /^https?:\/\/[^/]+\/user_avatars\/exports\/\d+\/[A-Za-z0-9_-]+\/zulip-export-[0-9a-f]+\.tar\.gz$/);
  const memberEvents = await eventsUntil(hamlet, memberQueue.queueId, (seen) => seen.some((event) => event.type === 'message'));
  assert.equal(memberEvents.filter((event) => event.type === 'realm_export'), [], 'members hear nothing of exports');

  // Zulip's format: `manage import` makes a new organization of it, with what was exported.
  let imported: ImportSummary | undefined;
  const unpacked = await unpack(iago, done.export_url!, async (dir) => {
    imported = await importRealm(server.parley.realms, dir, 'imported');
  });
  for (const name of ['realm.json', 'messages-000001.json', 'attachment.json', 'uploads/records.json']) assert.ok(unpacked.has(name), name);
  const realm = JSON.parse(unpacked.get('realm.json')!) as { zerver_realm: { string_id: string }[]; zerver_userprofile: { delivery_email: string }[] };
  assert.ok(realm.zerver_userprofile.some((user) => user.delivery_email === 'hamlet@zulip.com'));
  const carried = contents(unpacked);
  assert.ok(carried.includes('Hello, Verona!'), 'public channels are exported');
  assert.not.ok(carried.includes('sent while the export runs'), 'the export is of the moment it began');
  for (const secret of ['a word for Cordelia alone', 'the core team plans']) assert.not.ok(carried.includes(secret), `a public export leaves out "${secret}"`);
  assert.equal([imported?.users, imported?.messages], [realm.zerver_userprofile.length, carried.length]);

  const path = new URL(done.export_url!).pathname;
  assert.is((await download(hamlet, path)).status, 400, 'a member may not download it');
  assert.is((await download(server.anonymous, path)).status, 401);
});

exports('a standard export, by an owner, carries the private messages of the users who consented', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const desdemona = await server.as('desdemona@zulip.com');
  const queue = await register(iago, { event_types: ['realm_export', 'realm_export_consent'] });
  assert.is((await hamlet.patch('/settings', { allow_private_data_export: true })).status, 200);
  const [consent] = await eventsUntil(iago, queue.queueId, (events) => events.length > 0);
  assertEventMatchesReference(consent!);
  const hamletId = (await hamlet.get('/users/me')).body.user_id as number;
  assert.equal([consent!.type, consent!.user_id, consent!.consented], ['realm_export_consent', hamletId, true]);

  const consents = await iago.get('/export/realm/consents');
  assertMatchesReference('GET /export/realm/consents', consents.body);
  const byUser = new Map((consents.body.export_consents as { user_id: number; consented: boolean }[]).map((row) => [row.user_id, row.consented]));
  assert.is(byUser.get(hamletId), true);
  assert.is(byUser.get((await iago.get('/users/me')).body.user_id as number), false);

  const refused = await iago.post('/export/realm', { export_type: 2 });
  assert.equal([refused.status, refused.body.code, refused.body.msg], [400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner']);
  const id = (await desdemona.post('/export/realm', { export_type: 2 })).body.id as number;
  const events = await eventsUntil(iago, queue.queueId, finished(id));
  const done = exportIn(events.at(-1)!, id)!;
  assert.equal([done.export_type, done.pending], [2, false]);
  const carried = contents(await unpack(desdemona, done.export_url!));
  assert.ok(carried.includes('a word for Cordelia alone'), "Hamlet's direct message: he consented");
  assert.not.ok(carried.includes('the core team plans'), 'the private channel: none of its subscribers consented');
});

exports('a finished export is deleted: its file goes, its row stays with the time, administrators hear of it', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const queue = await register(iago, { event_types: ['realm_export'] });
  const done = (await iago.get('/export/realm')).body.exports as ExportView[];
  const target = done.find((view) => view.export_url !== null)!;
  const deleted = await iago.delete(`/export/realm/${target.id}`);
  assert.equal([deleted.status, deleted.body.result], [200, 'success']);
  const [event] = await eventsUntil(iago, queue.queueId, (events) => events.length > 0);
  assertEventMatchesReference(event!);
  const after = exportIn(event!, target.id)!;
  assert.equal([after.export_url, typeof after.deleted_timestamp], [null, 'number']);
  assert.is((await download(iago, new URL(target.export_url!).pathname)).status, 404, 'the file is gone');
  for (const [id, msg] of [[target.id, 'Export already deleted'], [99_999, 'Invalid data export ID']] as const) {
    const again = await iago.delete(`/export/realm/${id}`);
    assert.equal([again.status, again.body.code, again.body.msg], [400, 'BAD_REQUEST', msg]);
  }
});

exports('members and moderators may not export, list, delete or see consents; credentials are required', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const othelloId = (await othello.get('/users/me')).body.user_id as number;
  assert.is((await iago.patch(`/users/${othelloId}`, { role: 300 })).status, 200);
  const endpoints = [['POST', '/export/realm'], ['GET', '/export/realm'], ['DELETE', '/export/realm/1'], ['GET', '/export/realm/consents']] as const;
  for (const client of [await server.as('hamlet@zulip.com'), othello]) {
    for (const [method, path] of endpoints) {
      const refused = await client.call(method, path);
      assert.equal([refused.status, refused.body.code], [400, 'UNAUTHORIZED_PRINCIPAL'], `${client.email}: ${method} ${path}`);
    }
  }
  await assertRequiresCredentials(server.anonymous, endpoints);
  const unknownType = await iago.post('/export/realm', { export_type: 3 });
  assert.is(unknownType.status, 400);
});

exports('an organization may request five exports a week', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const made = ((await iago.get('/export/realm')).body.exports as ExportView[]).length;
  for (let count = made; count < 5; count++) assert.is((await iago.post('/export/realm', {})).status, 200);
  const refused = await iago.post('/export/realm', {});
  assert.equal([refused.status, refused.body.code, refused.body.msg], [400, 'BAD_REQUEST', 'Exceeded rate limit.']);
});

/** Asks until the exports answer as `wanted` says (each pass of the exporter is a few
 * milliseconds; bounded). */
async function exportsOnceThey(client: ApiClient, wanted: (views: ExportView[]) => boolean): Promise<ExportView[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const views = (await client.get('/export/realm')).body.exports as ExportView[];
    if (wanted(views)) return views;
    assert.ok(Date.now() < deadline, `exports never came to the state wanted: ${JSON.stringify(views)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

exports('a finished export is kept a week, then its file goes; the weekly limit moves on with it', async ({ server, clock }) => {
  const iago = await server.as('iago@zulip.com');
  const kept = (await exportsOnceThey(iago, (views) => views.every((view) => !view.pending))).filter((view) => view.export_url !== null);
  assert.ok(kept.length > 0);
  clock.advance(8 * 24 * 3600 * 1000);
  const after = await exportsOnceThey(iago, (views) => views.every((view) => view.export_url === null));
  for (const view of kept) assert.type(after.find((other) => other.id === view.id)!.deleted_timestamp, 'number');
  assert.is((await download(iago, new URL(kept[0]!.export_url!).pathname)).status, 404, 'the file is gone');
  assert.is((await iago.post('/export/realm', {})).status, 200, 'a week later, exports may be requested again');
});

exports.run();

const restart = suite('data exports across a restart');

restart('an export pending when the server stops is written when it starts again', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-test-'));
  const files = new HeldStorage(dataDir);
  const first = await startTestServer({ dataDir }, { files });
  const held = files.hold();
  const id = (await (await first.as('iago@zulip.com')).post('/export/realm', {})).body.id as number;
  await held.reached;
  await first.parley.close();
  held.release();
  const second = await startTestServer({ dataDir });
  try {
    const iago = await second.as('iago@zulip.com');
    const queue = await register(iago, { event_types: ['realm_export'] });
    const listed = ((await iago.get('/export/realm')).body.exports as ExportView[]).find((view) => view.id === id)!;
    if (listed.pending) await eventsUntil(iago, queue.queueId, finished(id));
    const done = ((await iago.get('/export/realm')).body.exports as ExportView[]).find((view) => view.id === id)!;
    assert.equal([done.pending, done.failed_timestamp], [false, null]);
    assert.ok((await unpack(iago, done.export_url!)).has('realm.json'));
  } finally {
    await second.stop();
  }
});

restart.run();
