// SIGTERM under load, over several rounds: senders keep keep-alive connections busy while the
// server stops; every request gets an answer (success, or 503 while shutting down), and after the
// restart each receiver resuming its event queue finds every acknowledged message exactly once.
// FAULT_ROUNDS sets the rounds (3).
import { rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiClient, formEncode, type Credentials } from '../helpers/client.js';
import type { Event } from '../helpers/events.js';
import { devClient, report, tempDataDir } from '../helpers/operator.js';
import { spawnServer } from '../helpers/process.js';

const ROUNDS = Number(process.env.FAULT_ROUNDS ?? 3);
const SENDERS = 4;
const RECEIVERS = ['hamlet@zulip.com', 'othello@zulip.com', 'cordelia@zulip.com'];

type Outcome = { kind: 'answered'; status: number; id?: number } | { kind: 'refused' } | { kind: 'unanswered'; error: string };

/** POSTs a message on a keep-alive connection, telling a refused connection (never sent) from a
 * request that was sent and never answered. */
function send(baseUrl: string, agent: Agent, credentials: Credentials, content: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const token = Buffer.from(`${credentials.email}:${credentials.apiKey}`).toString('base64');
    const req = request(`${baseUrl}/api/v1/messages`, { method: 'POST', agent, headers: { Authorization: `Basic ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        const body = JSON.parse(text) as { id?: number };
        resolve({ kind: 'answered', status: res.statusCode ?? 0, ...(res.statusCode === 200 ? { id: Number(body.id) } : {}) });
      });
      res.on('error', (error) => resolve({ kind: 'unanswered', error: error.message }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'unanswered', error: `${error.code ?? ''} ${error.message}` }));
    req.end(formEncode({ type: 'stream', to: 'Verona', topic: 'restart', content }));
  });
}

test(`SIGTERM under load (${ROUNDS} rounds): every request answered, every acknowledged event in the resumed queues once`, async () => {
  const dataDir = tempDataDir('parley-restart-');
  const totals = { acknowledged: 0, shuttingDown: 0, refused: 0, unanswered: 0 };
  const started = Date.now();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const server = await spawnServer({ PARLEY_DATA_DIR: dataDir });
      const receivers = await Promise.all(RECEIVERS.map((email) => devClient(server.baseUrl, email)));
      const queues = await Promise.all(receivers.map(async (client) => String((await client.post('/register', { event_types: ['message'], fetch_event_types: [] })).body.queue_id)));
      const iago = await devClient(server.baseUrl, 'iago@zulip.com');
      const outcomes: Outcome[] = [];
      let running = true;
      const senders = Array.from({ length: SENDERS }, async (_, sender) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        for (let i = 0; running; i++) {
          const outcome = await send(server.baseUrl, agent, iago.credentials!, `round ${round} sender ${sender} #${i}`);
          outcomes.push(outcome);
          if (outcome.kind !== 'answered' || outcome.status !== 200) break;
        }
        agent.destroy();
      });
      await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 800));
      server.child.kill('SIGTERM');
      assert.is(await server.exited, 0, 'a graceful stop exits 0');
      running = false;
      await Promise.all(senders);

      const acknowledged = outcomes.flatMap((outcome) => (outcome.kind === 'answered' && outcome.id !== undefined ? [outcome.id] : []));
      const unanswered = outcomes.filter((outcome) => outcome.kind === 'unanswered');
      const other = outcomes.filter((outcome) => outcome.kind === 'answered' && outcome.status !== 200 && outcome.status !== 503);
      assert.equal(unanswered, [], 'requests sent but never answered');
      assert.equal(other, [], 'answers other than success or 503 while stopping');
      totals.acknowledged += acknowledged.length;
      totals.shuttingDown += outcomes.filter((outcome) => outcome.kind === 'answered' && outcome.status === 503).length;
      totals.refused += outcomes.filter((outcome) => outcome.kind === 'refused').length;

      const again = await spawnServer({ PARLEY_DATA_DIR: dataDir });
      for (const [index, receiver] of receivers.entries()) {
        const client = new ApiClient(again.baseUrl, receiver.credentials);
        const polled = await client.get('/events', { queue_id: queues[index], last_event_id: -1, dont_block: true });
        assert.is(polled.status, 200, `${receiver.email}'s queue survived: ${JSON.stringify(polled.body)}`);
        const seen = (polled.body.events as Event[]).filter((event) => event.type === 'message').map((event) => (event.message as { id: number }).id);
        const counts = new Map<number, number>();
        for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
        assert.equal(acknowledged.filter((id) => counts.get(id) !== 1), [], `${receiver.email}: acknowledged messages not in the resumed queue exactly once`);
        await client.delete('/events', { queue_id: queues[index] });
      }
      again.child.kill('SIGTERM');
      await again.exited;
    }
    report('SIGTERM under load', {
      rounds: ROUNDS,
      'messages acknowledged': totals.acknowledged,
      '503 while stopping': totals.shuttingDown,
      'connections refused (never sent)': totals.refused,
      unanswered: totals.unanswered,
      'missing from resumed queues': 0,
      seconds: ((Date.now() - started) / 1000).toFixed(1),
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
