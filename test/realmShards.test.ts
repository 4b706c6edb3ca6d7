// Realms on several realm threads (PARLEY_REALM_THREADS; docs/ARCHITECTURE.md, "Several realm
// threads"), as an operator and the realms' clients see them: the management CLI puts each new
// realm in the shard with the fewest realms; a server serves every realm of every shard by its
// subdomain, each realm's writes, events (long-poll and socket) and history its own; IDs stay
// unique server-wide and keep growing across a restart (the shards' counters are raised from every
// shard), and queues outlive it; a server on one thread refuses a data directory with realms beyond
// shard 0, but not one whose other shards are empty, where the CLI puts no realm unless told of
// realm threads; and a server told of fewer realm threads than there are shards on disk still serves
// them all.
import { spawn } from 'node:child_process';
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { test } from 'uvu';
import { freePort } from '../src/cli/processes.js';
import * as assert from 'uvu/assert';
import { ApiClient } from './helpers/client.js';
import { register, StreamClient, type Event } from './helpers/events.js';
import { devClient, tempDataDir } from './helpers/operator.js';
import { runManage, spawnServer, type ServerProcess } from './helpers/process.js';

const EXTERNAL_HOST = 'chat.test';
const mainScript = new URL('../src/main.js', import.meta.url).pathname;

const dataDir = tempDataDir('parley-shards-');
/** What every process of these tests runs with; each sets how many threads it has. */
const baseEnv = { PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'development', PARLEY_EXTERNAL_HOST: EXTERNAL_HOST, PARLEY_STORE_SYNC: 'false', PARLEY_PASSWORD_HASH_COST: '4' };
const twoShards = { ...baseEnv, PARLEY_REALM_THREADS: '2' };
/** PARLEY_REALM_THREADS unset (an empty setting is the default, 1), whatever this process has. */
const oneRealmThread = { ...baseEnv, PARLEY_REALM_THREADS: '' };

interface Org {
  subdomain: string;
  /** The shard the CLI is expected to put it in. */
  shard: number;
  realmId: number;
  ownerId: number;
  email: string;
  apiKey: string;
  channelId: number;
  /** The messages sent in its channel, in the order they were sent. */
  sent: { id: number; content: string }[];
}

const orgs: Org[] = [];
const org = (subdomain: string): Org => orgs.find((o) => o.subdomain === subdomain)!;
let server: ServerProcess | undefined;
/** A queue of shard 1's realm, registered before the restart, and the last event its client read. */
let southQueue: { queueId: string; lastEventId: number } | undefined;

function createRealm(subdomain: string, shard: number, env: Record<string, string>): Org {
  const email = `boss@${subdomain}.test`;
  const created = runManage(['create-realm', '--subdomain', subdomain, '--name', `Org ${subdomain}`, '--owner-email', email, '--owner-name', `Boss of ${subdomain}`], env);
  assert.is(created.status, 0, created.stderr);
  const { realm_id, owner_id, api_key } = JSON.parse(created.stdout) as { realm_id: number; owner_id: number; api_key: string };
  return { subdomain, shard, realmId: realm_id, ownerId: owner_id, email, apiKey: api_key, channelId: 0, sent: [] };
}

/** The IDs of the realms whose rows shard `index` of a data directory holds, read from its LMDB environment. */
function realmsInShard(index: number, dir = dataDir): number[] {
  const path = index === 0 ? join(dir, 'parley.mdb') : join(dir, 'shards', String(index), 'parley.mdb');
  if (!existsSync(path)) return [];
  const env = open({ path, readOnly: true });
  try {
    return [...env.openDB<unknown, number>({ name: 'realms' }).getKeys()].sort((a, b) => a - b);
  } finally {
    void env.close();
  }
}

const clientOf = (o: Org, baseUrl = server!.baseUrl): ApiClient => new ApiClient(baseUrl, { email: o.email, apiKey: o.apiKey }, `${o.subdomain}.${EXTERNAL_HOST}`);

/** Runs `run` against a server started with `env`, then stops it gracefully (it exits 0); a failing
 * `run` stops it all the same, for the next test to find the data directory free. */
async function withServer(env: Record<string, string>, run: () => Promise<void>): Promise<void> {
  server = await spawnServer(env);
  let failed = true;
  try {
    await run();
    failed = false;
  } finally {
    const running = server;
    server = undefined;
    running.child.kill('SIGTERM');
    const code = await running.exited;
    if (!failed) assert.is(code, 0, 'a graceful stop exits 0');
  }
}

async function ok(request: Promise<{ status: number; body: Record<string, unknown> }>): Promise<Record<string, unknown>> {
  const response = await request;
  assert.is(response.status, 200, JSON.stringify(response.body));
  return response.body;
}

async function send(o: Org, content: string, extra: Record<string, unknown> = {}): Promise<number> {
  const body = await ok(clientOf(o).post('/messages', { type: 'stream', to: o.channelId, topic: 'shards', content, ...extra }));
  const id = Number(body.id);
  o.sent.push({ id, content });
  return id;
}

async function createChannel(o: Org, name: string): Promise<number> {
  const client = clientOf(o);
  await ok(client.post('/users/me/subscriptions', { subscriptions: [{ name }] }));
  return Number((await ok(client.get('/get_stream_id', { stream: name }))).stream_id);
}

/** The realm's channel as GET /messages shows it: each message's ID and its raw content. */
async function channelHistory(o: Org): Promise<{ id: number; content: string }[]> {
  const narrow = [{ operator: 'channel', operand: o.channelId }];
  const body = await ok(clientOf(o).get('/messages', { anchor: 'newest', num_before: 200, num_after: 0, narrow, apply_markdown: false }));
  return (body.messages as { id: number; content: string }[]).map(({ id, content }) => ({ id, content }));
}

/** Every message the realm's owner can see, whatever the channel. */
async function everyMessageId(o: Org): Promise<number[]> {
  const body = await ok(clientOf(o).get('/messages', { anchor: 'newest', num_before: 1000, num_after: 0 }));
  return (body.messages as { id: number }[]).map(({ id }) => id);
}

const isAscending = (ids: readonly number[]): boolean => ids.every((id, at) => at === 0 || id > ids[at - 1]!);
const sentIds = (): number[] => orgs.flatMap((o) => o.sent.map(({ id }) => id));

test.after(() => {
  server?.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

test('with two realm threads, the CLI puts each new realm in the shard with the fewest realms, its subdomain checked against every shard', () => {
  orgs.push(createRealm('north', 0, twoShards), createRealm('south', 1, twoShards), createRealm('east', 0, twoShards));
  assert.ok(existsSync(join(dataDir, 'shards', '1', 'parley.mdb')), 'shard 1 is made in shards/1/');
  assert.equal(realmsInShard(0), [org('north').realmId, org('east').realmId]);
  assert.equal(realmsInShard(1), [org('south').realmId]);
  assert.ok(isAscending(orgs.map((o) => o.realmId)), 'realm IDs grow in the order realms are made, across shards');
  assert.is(new Set(orgs.map((o) => o.ownerId)).size, 3, 'user IDs are unique across shards');

  const clash = runManage(['create-realm', '--subdomain', 'south', '--name', 'Again', '--owner-email', 'x@again.test', '--owner-name', 'X'], twoShards);
  assert.is(clash.status, 2, 'a subdomain taken in shard 1 is refused');
  assert.match(clash.stderr, /exists/);

  const listed = runManage(['list-realms'], twoShards);
  assert.is(listed.status, 0, listed.stderr);
  assert.equal(
    listed.stdout.trim().split('\n'),
    orgs.map((o) => `${o.realmId}\t${o.subdomain}\tOrg ${o.subdomain}`),
    'every shard’s realms, in ID order',
  );
});

test('a server with I/O threads and two realm threads serves every realm by its subdomain: its own users, channels, events and messages', async () => {
  const metricsPort = await freePort();
  await withServer({ ...twoShards, PARLEY_THREADS: '3', PARLEY_METRICS_PORT: String(metricsPort) }, async () => {
    for (const o of orgs) {
      const me = await ok(clientOf(o).get('/users/me'));
      assert.equal([me.user_id, me.email], [o.ownerId, o.email], `${o.subdomain}: its owner`);
      const settings = await ok(clientOf(o).withCredentials(undefined).get('/server_settings'));
      assert.is(settings.realm_name, `Org ${o.subdomain}`);
      // A key is its realm's: another realm's Host header refuses it, whichever shard each is on.
      const elsewhere = orgs.find((other) => other.shard !== o.shard)!;
      const refused = await new ApiClient(server!.baseUrl, { email: o.email, apiKey: o.apiKey }, `${elsewhere.subdomain}.${EXTERNAL_HOST}`).get('/users/me');
      assert.is(refused.status, 401, `${o.subdomain}'s key in ${elsewhere.subdomain}`);
    }
    // The same channel name in every realm, the last made in shard 0 (the restart test below wants
    // the highest channel ID there).
    for (const name of ['south', 'north', 'east']) org(name).channelId = await createChannel(org(name), 'Shards');
    assert.is(new Set(orgs.map((o) => o.channelId)).size, 3, 'channel IDs are unique across shards');

    const queues = await Promise.all(orgs.map(async (o) => (await register(clientOf(o), { event_types: ['message'] })).queueId));
    // Shard 1's realm's events on the event socket too, from a queue of their own.
    const south = org('south');
    const socketQueue = (await register(clientOf(south), { event_types: ['message'] })).queueId;
    const stream = await StreamClient.open(`${server!.baseUrl.replace('http', 'ws')}/api/v1/events/socket`, clientOf(south).identity());
    stream.send({ op: 'attach', queue_id: socketQueue, last_event_id: -1 });
    // Each realm's writes one after the other, the realms' at once.
    const localIds = new Map<number, string>();
    for (let round = 1; round <= 3; round++) {
      await Promise.all(
        orgs.map(async (o, at) => {
          const localId = `${round}.0${at + 1}`;
          localIds.set(await send(o, `${o.subdomain} says ${round}`, { queue_id: queues[at], local_id: localId }), localId);
        }),
      );
    }
    // The last message before the restart is in shard 1 (the restart test below wants it there).
    await send(org('south'), 'south has the last word');

    const all = sentIds();
    assert.is(new Set(all).size, all.length, 'message IDs are unique across realms and shards');
    for (const [at, o] of orgs.entries()) {
      assert.ok(isAscending(o.sent.map(({ id }) => id)), `${o.subdomain}: its message IDs grow in the order it sent them: ${JSON.stringify(o.sent)}`);
      // Every event is queued before its write's answer, on whichever front holds the queue.
      const read = await ok(clientOf(o).get('/events', { queue_id: queues[at], last_event_id: -1, dont_block: true }));
      const events = (read.events as Event[]).filter((event) => event.type === 'message');
      if (o.subdomain === 'south') southQueue = { queueId: queues[at]!, lastEventId: Math.max(...(read.events as Event[]).map((event) => event.id)) };
      assert.equal(
        events.map((event) => {
          const message = event.message as { id: number; content: string; stream_id: number };
          return [message.id, message.stream_id, event.local_message_id];
        }),
        o.sent.map(({ id }) => [id, o.channelId, localIds.get(id)]),
        `${o.subdomain}: its own messages' events, and only those, in order, with the local IDs sent`,
      );
      assert.equal(await channelHistory(o), o.sent, `${o.subdomain}: its channel's history`);
      const others = new Set(orgs.filter((other) => other !== o).flatMap((other) => other.sent.map(({ id }) => id)));
      const seen = await everyMessageId(o);
      assert.ok(o.sent.every(({ id }) => seen.includes(id)));
      assert.equal(seen.filter((id) => others.has(id)), [], `${o.subdomain}: no other realm's message`);
    }
    // The operator's figures are every shard's: each realm thread reports its own, a second old at most.
    const status = async () => (await (await fetch(`http://127.0.0.1:${metricsPort}/status.json`)).json()) as { realms: { id: number; loaded: boolean }[]; storeBytes: number };
    const shardBytes = [0, 1].reduce((total, shard) => total + statSync(shard === 0 ? join(dataDir, 'parley.mdb') : join(dataDir, 'shards', '1', 'parley.mdb')).size, 0);
    const deadline = Date.now() + 5000;
    for (let seen = await status(); ; seen = await status()) {
      const loaded = seen.realms.filter((realm) => realm.loaded).map((realm) => realm.id);
      if (JSON.stringify(loaded) === JSON.stringify(orgs.map((o) => o.realmId)) && seen.storeBytes >= shardBytes) break;
      if (Date.now() > deadline) assert.unreachable(`status: realms loaded ${JSON.stringify(loaded)}, store bytes ${seen.storeBytes} of ${shardBytes}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const onSocket = () => stream.events().flatMap((event) => (event.type === 'message' ? [(event.message as { id: number }).id] : []));
    try {
      await stream.until(() => onSocket().length >= south.sent.length);
      assert.equal(onSocket(), south.sent.map(({ id }) => id), "the socket has shard 1's realm's messages, and only those");
    } finally {
      stream.close();
    }
  });
});

test("after a graceful restart every realm's messages and queues are there, and new IDs are above every ID of any shard before it", async () => {
  const sent = sentIds();
  const lastMessage = Math.max(...sent);
  const lastChannel = Math.max(...orgs.map((o) => o.channelId));
  assert.ok(org('south').sent.some(({ id }) => id === lastMessage), 'the highest message ID is in shard 1');
  assert.ok([org('north').channelId, org('east').channelId].includes(lastChannel), 'the highest channel ID is in shard 0');
  const south = org('south');
  const queue = southQueue!;
  await withServer({ ...twoShards, PARLEY_THREADS: '3' }, async () => {
    for (const o of orgs) assert.equal(await channelHistory(o), o.sent, `${o.subdomain}: its messages after the restart`);

    for (const o of orgs) {
      const id = await send(o, `${o.subdomain} after the restart`);
      assert.ok(id > lastMessage, `${o.subdomain}: message ${id} after the restart is above ${lastMessage}, the highest of any shard before it`);
    }
    const channel = await createChannel(south, 'After the restart');
    assert.ok(channel > lastChannel, `channel ${channel} of shard 1 after the restart is above ${lastChannel}, shard 0's highest before it`);
    const after = sentIds().filter((id) => !sent.includes(id));
    assert.is(new Set(sentIds()).size, sentIds().length, 'no ID taken twice');
    assert.ok(isAscending(after.sort((a, b) => a - b)));
    // What was there before is still there, none of it overwritten by what came after.
    for (const o of orgs) assert.equal(await channelHistory(o), o.sent, `${o.subdomain}: its whole history`);

    // The queue registered in shard 1's realm before the restart goes on from where its client was.
    const kept = await ok(clientOf(south).get('/events', { queue_id: queue.queueId, last_event_id: queue.lastEventId, dont_block: true }));
    const messages = (kept.events as Event[]).filter((event) => event.type === 'message').map((event) => (event.message as { id: number }).id);
    assert.equal(messages, [south.sent.at(-1)!.id], "shard 1's realm's queue outlived the restart and has the message sent since");
  });
});

/** A server started with `env` that must not start: its exit code, and what it wrote. */
async function refusal(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [mainScript], { env: { ...process.env, ...env, PARLEY_HOST: '127.0.0.1', PARLEY_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (data: Buffer) => {
    output += data.toString();
    // A server that starts instead of refusing is stopped at once (the test fails all the same).
    if (/listening on/.test(output)) child.kill('SIGTERM');
  });
  child.stderr.on('data', (data: Buffer) => (output += data.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  assert.not.match(output, /listening on/, output);
  assert.is.not(code, null, `it did not exit by itself: ${output}`);
  return { code, output };
}

test('a server on one thread refuses the data directory, naming the shard with realms and PARLEY_THREADS', async () => {
  const { code, output } = await refusal({ ...baseEnv, PARLEY_THREADS: '1' });
  assert.is.not(code, 0, output);
  assert.match(output, /shard 1\b/, output);
  assert.match(output, /PARLEY_THREADS/, output);
});

test('realm threads asked of a server on one thread are refused, not ignored', async () => {
  const dir = tempDataDir('parley-shards-refused-');
  try {
    const { code, output } = await refusal({ ...baseEnv, PARLEY_DATA_DIR: dir, PARLEY_THREADS: '1', PARLEY_REALM_THREADS: '2' });
    assert.is.not(code, 0, output);
    assert.match(output, /PARLEY_REALM_THREADS above 1 needs PARLEY_THREADS of 2 or more/, output);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with one realm thread asked for, the CLI puts a new realm in shard 0, and the server still serves every shard on disk', async () => {
  // Shard 1 holds fewer realms, but a server told of one realm thread holds shard 0's alone.
  orgs.push(createRealm('west', 0, oneRealmThread));
  assert.equal(realmsInShard(0), [org('north').realmId, org('east').realmId, org('west').realmId]);
  assert.equal(realmsInShard(1), [org('south').realmId]);
  // A command that makes no realm makes no shard, whatever PARLEY_REALM_THREADS says.
  assert.is(runManage(['list-realms'], { ...baseEnv, PARLEY_REALM_THREADS: '3' }).status, 0);
  assert.not.ok(existsSync(join(dataDir, 'shards', '2')), 'list-realms made no shard 2');

  const before = Math.max(...sentIds());
  await withServer({ ...oneRealmThread, PARLEY_THREADS: '2' }, async () => {
    for (const o of orgs.filter((o) => o.channelId !== 0)) assert.equal(await channelHistory(o), o.sent, `${o.subdomain}: its messages`);
    const west = org('west');
    const me = await ok(clientOf(west).get('/users/me'));
    assert.is(me.user_id, west.ownerId);
    west.channelId = await createChannel(west, 'Shards');
    for (const o of orgs) {
      const id = await send(o, `${o.subdomain} on one realm thread`);
      assert.ok(id > before, `${o.subdomain}: message ${id} is above ${before}`);
    }
    for (const o of orgs) assert.equal(await channelHistory(o), o.sent, `${o.subdomain}: its messages`);
  });
});

test('manage move-realm moves a realm whole to another shard: the same digest, its history and IDs served from there', async () => {
  const south = org('south');
  const digest = () => runManage(['digest', '--realm', 'south'], twoShards).stdout.trim();
  const before = digest();
  // Not while a backup runs (this process stands for it): it copies the shards at different moments.
  writeFileSync(join(dataDir, 'parley.backup'), String(process.pid));
  const waiting = runManage(['move-realm', '--realm', 'south', '--to-shard', '0'], twoShards);
  assert.is(waiting.status, 2, waiting.stdout);
  assert.match(waiting.stderr, new RegExp(`process ${process.pid} is backing up`));
  assert.equal(realmsInShard(1), [south.realmId], 'nothing moved');
  rmSync(join(dataDir, 'parley.backup'));
  const moved = runManage(['move-realm', '--realm', 'south', '--to-shard', '0'], twoShards);
  assert.is(moved.status, 0, moved.stderr);
  const summary = JSON.parse(moved.stdout) as { realm_id: number; from: number; to: number; rows: number };
  assert.equal([summary.realm_id, summary.from, summary.to], [south.realmId, 1, 0]);
  assert.ok(realmsInShard(0).includes(south.realmId));
  assert.equal(realmsInShard(1), [], 'shard 1 let go of it');
  assert.is(digest(), before, 'every row of the realm, as it was');
  for (const [args, refusal] of [
    [['--to-shard', '0'], /in shard 0 already/],
    [['--to-shard', '2'], /no shard 2/],
  ] as const) {
    const refused = runManage(['move-realm', '--realm', 'south', ...args], twoShards);
    assert.is(refused.status, 2, refused.stdout);
    assert.match(refused.stderr, refusal);
  }
  // Shard 1 holds no realm now: a server on one thread opens the directory and serves the realm.
  const last = Math.max(...sentIds());
  await withServer({ ...baseEnv, PARLEY_THREADS: '1' }, async () => {
    assert.equal(await channelHistory(south), south.sent, "south's messages, from shard 0");
    const id = await send(south, 'south from shard 0');
    assert.ok(id > last, `message ${id} is above ${last}`);
  });
});

test('a data directory whose other shards hold no realm still opens on one thread: the demo realm, seeded once, in shard 0', async () => {
  const dir = tempDataDir('parley-shards-empty-');
  const env = { ...baseEnv, PARLEY_DATA_DIR: dir };
  const hamletOn = (baseUrl: string) => devClient(baseUrl, 'hamlet@zulip.com');
  try {
    let before = 0;
    await withServer({ ...env, PARLEY_THREADS: '3', PARLEY_REALM_THREADS: '2' }, async () => {
      const hamlet = await hamletOn(server!.baseUrl);
      before = Number((await ok(hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'shards', content: 'on two realm threads' }))).id);
    });
    assert.ok(existsSync(join(dir, 'shards', '1', 'parley.mdb')), 'the server made shard 1');
    assert.is(realmsInShard(1, dir).length, 0, 'shard 1 holds no realm');
    const listed = runManage(['list-realms'], env);
    assert.is(listed.stdout.trim().split('\n').length, 1, `one demo realm, not one a shard: ${listed.stdout}`);
    // A realm made without realm threads asked for goes to shard 0, though shard 1 is empty: the
    // server on one thread below still opens the directory.
    const made = createRealm('solo', 0, env);
    assert.equal(realmsInShard(1, dir), [], `shard 1 still holds no realm, realm ${made.realmId} went to shard 0`);

    await withServer({ ...env, PARLEY_THREADS: '1' }, async () => {
      const hamlet = await hamletOn(server!.baseUrl);
      const kept = await ok(hamlet.get('/messages', { message_ids: [before], apply_markdown: false }));
      assert.equal((kept.messages as { content: string }[]).map((message) => message.content), ['on two realm threads']);
      const after = Number((await ok(hamlet.post('/messages', { type: 'stream', to: 'Verona', topic: 'shards', content: 'on one thread' }))).id);
      assert.ok(after > before, `message ${after} is above ${before}`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
