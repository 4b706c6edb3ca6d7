// kill -9 at random moments under a mixed write load — messages, stars, subscriptions, drafts,
// scheduled messages — over several rounds: after each restart every acknowledged write is there,
// no ID is handed out twice, and the derived views agree (unread counts with flags, topic index
// with channel index, scheduled messages in a legal state). FAULT_ROUNDS sets the rounds (5).
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiClient } from '../helpers/client.js';
import { devClient, report, tempDataDir } from '../helpers/operator.js';
import { spawnServer } from '../helpers/process.js';

const ROUNDS = Number(process.env.FAULT_ROUNDS ?? 5);
const WORKERS = 6;

interface Acknowledged {
  messages: number[];
  starred: number[];
  subscriptions: string[];
  drafts: number[];
  scheduled: number[];
}

interface Clients {
  iago: ApiClient;
  hamlet: ApiClient;
  othello: ApiClient;
  hamletId: number;
  othelloId: number;
}

const random = (below: number) => Math.floor(Math.random() * below);

/** One write of a random kind; what the server acknowledged goes into `done`. */
async function oneWrite(clients: Clients, done: Acknowledged, round: number, serial: number): Promise<void> {
  const { iago, hamlet, hamletId, othelloId } = clients;
  switch (random(6)) {
    case 0:
    case 1: {
      const response = await iago.post('/messages', { type: 'stream', to: 'Verona', topic: `crash ${random(5)}`, content: `round ${round} #${serial}` });
      if (response.status === 200) done.messages.push(Number(response.body.id));
      return;
    }
    case 2: {
      const response = await iago.post('/messages', { type: 'private', to: [hamletId], content: `direct ${round} #${serial}` });
      if (response.status === 200) done.messages.push(Number(response.body.id));
      return;
    }
    case 3: {
      const id = done.messages.at(-1 - random(Math.min(20, done.messages.length)));
      if (id === undefined) return;
      const response = await hamlet.post('/messages/flags', { messages: [id], op: 'add', flag: 'starred' });
      if (response.status === 200) done.starred.push(id);
      return;
    }
    case 4: {
      const name = `crash-${round}-${serial}`;
      const response = await iago.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [othelloId] });
      if (response.status === 200) done.subscriptions.push(name);
      return;
    }
    default: {
      if (random(2) === 0) {
        const response = await hamlet.post('/drafts', { drafts: [{ type: 'stream', to: [await veronaId(hamlet)], topic: 'draft', content: `draft ${serial}`, timestamp: Math.floor(Date.now() / 1000) }] });
        if (response.status === 200) done.drafts.push(...(response.body.ids as number[]));
      } else {
        const at = Math.floor(Date.now() / 1000) + 3600;
        const response = await iago.post('/scheduled_messages', { type: 'stream', to: await veronaId(iago), topic: 'later', content: `scheduled ${serial}`, scheduled_delivery_timestamp: at });
        if (response.status === 200) done.scheduled.push(Number(response.body.scheduled_message_id));
      }
    }
  }
}

let verona: number | undefined;
async function veronaId(client: ApiClient): Promise<number> {
  verona ??= Number((await client.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  return verona;
}

async function connect(baseUrl: string): Promise<Clients> {
  const [iago, hamlet, othello] = await Promise.all(['iago@zulip.com', 'hamlet@zulip.com', 'othello@zulip.com'].map((email) => devClient(baseUrl, email)));
  const idOf = async (client: ApiClient) => Number((await client.get('/users/me')).body.user_id);
  return { iago: iago!, hamlet: hamlet!, othello: othello!, hamletId: await idOf(hamlet!), othelloId: await idOf(othello!) };
}

async function allMessageIds(client: ApiClient, narrow: unknown[] = []): Promise<number[]> {
  const ids: number[] = [];
  for (let anchor: number | string = 'oldest'; ; ) {
    const page = await client.get('/messages', { narrow, anchor, num_before: 0, num_after: 2000, include_anchor: anchor === 'oldest', apply_markdown: false });
    assert.is(page.status, 200, JSON.stringify(page.body));
    const messages = page.body.messages as { id: number }[];
    ids.push(...messages.map((message) => message.id));
    if (page.body.found_newest || messages.length === 0) return ids;
    anchor = messages.at(-1)!.id;
  }
}

/** Every acknowledged write is present, and the views that must agree do. */
async function verify(clients: Clients, done: Acknowledged): Promise<string[]> {
  const problems: string[] = [];
  const missing = (what: string, expected: (string | number)[], present: Set<string | number>) => {
    const lost = expected.filter((item) => !present.has(item));
    if (lost.length > 0) problems.push(`${lost.length} ${what} lost: ${lost.slice(0, 5).join(', ')}`);
  };
  const hamletState = (await clients.hamlet.post('/register', { fetch_event_types: ['message', 'update_message_flags', 'starred_messages', 'drafts'] })).body;
  missing('messages', done.messages, new Set(await allMessageIds(clients.hamlet)));
  missing('stars', done.starred, new Set(hamletState.starred_messages as number[]));
  missing('drafts', done.drafts, new Set((hamletState.drafts as { id: number }[]).map((draft) => draft.id)));
  const subscribed = (await clients.othello.get('/users/me/subscriptions')).body.subscriptions as { name: string }[];
  missing('subscriptions', done.subscriptions, new Set(subscribed.map((channel) => channel.name)));
  const scheduled = (await clients.iago.get('/scheduled_messages')).body.scheduled_messages as { scheduled_message_id: number; failed: boolean }[];
  missing('scheduled messages', done.scheduled, new Set(scheduled.map((message) => message.scheduled_message_id)));
  if (scheduled.some((message) => message.failed)) problems.push('a scheduled message an hour ahead is marked failed');
  // Unread counts agree with the flags.
  const unread = (hamletState.unread_msgs as { count: number }).count;
  const unreadByFlags = (await allMessageIds(clients.hamlet, [['is', 'unread']])).length;
  if (unread !== Math.min(unreadByFlags, 50_000)) problems.push(`unread count ${unread} but ${unreadByFlags} messages flagged unread`);
  // The topic index agrees with the channel index.
  const byTopic = await allMessageIds(clients.hamlet, [['channel', 'Verona'], ['topic', 'crash 1']]);
  const byChannel = (await clients.hamlet.get('/messages', { narrow: [['channel', 'Verona']], anchor: 'oldest', num_before: 0, num_after: 5000, apply_markdown: false })).body.messages as { id: number; subject: string }[];
  const expectedTopic = byChannel.filter((message) => message.subject === 'crash 1').map((message) => message.id);
  if (byChannel.length < 5000 && expectedTopic.join() !== byTopic.join()) problems.push(`topic index holds ${byTopic.length} messages, channel index ${expectedTopic.length}`);
  return problems;
}

test(`kill -9 at random moments under mixed writes (${ROUNDS} rounds): nothing acknowledged is lost`, async () => {
  const dataDir = tempDataDir('parley-crash-');
  const done: Acknowledged = { messages: [], starred: [], subscriptions: [], drafts: [], scheduled: [] };
  const started = Date.now();
  let server: Awaited<ReturnType<typeof spawnServer>> | undefined;
  try {
    for (let round = 0; round <= ROUNDS; round++) {
      server = await spawnServer({ PARLEY_DATA_DIR: dataDir });
      const clients = await connect(server.baseUrl);
      if (round > 0) {
        const problems = await verify(clients, done);
        assert.equal(problems, [], `after crash ${round}`);
        const probe = await clients.iago.post('/messages', { type: 'stream', to: 'Verona', topic: 'probe', content: 'probe' });
        assert.ok(Number(probe.body.id) > Math.max(0, ...done.messages), `a new message ID (${String(probe.body.id)}) above every acknowledged one`);
        done.messages.push(Number(probe.body.id));
      }
      if (round === ROUNDS) {
        server.child.kill('SIGTERM');
        await server.exited;
        break;
      }
      let serial = 0;
      let running = true;
      const workers = Array.from({ length: WORKERS }, async () => {
        while (running) await oneWrite(clients, done, round, serial++).catch(() => undefined);
      });
      await new Promise((resolve) => setTimeout(resolve, 300 + random(1500)));
      server.child.kill('SIGKILL');
      await server.exited;
      running = false;
      await Promise.all(workers);
    }
    report('kill -9', {
      rounds: ROUNDS,
      'messages acknowledged': done.messages.length,
      stars: done.starred.length,
      subscriptions: done.subscriptions.length,
      drafts: done.drafts.length,
      'scheduled messages': done.scheduled.length,
      lost: 0,
      seconds: ((Date.now() - started) / 1000).toFixed(1),
    });
  } finally {
    // A round that failed leaves its server running (the test runner would wait for it).
    server?.child.kill('SIGKILL');
    await server?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
