// Abuse, as a hostile or careless user would try it, with figures: a burst past the rate limit,
// a thousand alert words (each still matched; the send's time with and without is reported, and
// measured by bench/, not asserted), many large bodies at once
// (the server's memory must stay bounded), and registering queues without end.
import { readFileSync, rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rawRequest } from '../helpers/client.js';
import type { ApiClient } from '../helpers/client.js';
import { devClient, report, tempDataDir } from '../helpers/operator.js';
import { spawnServer, type ServerProcess } from '../helpers/process.js';

const rssMb = (server: ServerProcess): number => {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
};

async function median(times: number[]): Promise<number> {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function sendTimes(sender: ApiClient, count: number, content: (i: number) => string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await sender.post('/messages', { type: 'stream', to: 'Verona', topic: 'abuse', content: content(i) });
    times.push(performance.now() - started);
    assert.is(response.status, 200);
  }
  return times;
}

test('abuse: rate limits, alert words at scale, large bodies at once, endless queues', async () => {
  const dataDir = tempDataDir('parley-abuse-');
  const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_RATE_LIMITS: 'true', PARLEY_RATE_LIMIT_REALMS: '{"": "100000/60"}' });
  try {
    const iago = await devClient(server.baseUrl, 'iago@zulip.com');
    const hamlet = await devClient(server.baseUrl, 'hamlet@zulip.com');

    // 300 wrong keys from one address: the address is stopped after about 100.
    const statuses = new Map<number, number>();
    const wrong = hamlet.withCredentials({ email: 'hamlet@zulip.com', apiKey: 'x'.repeat(32) });
    for (let i = 0; i < 300; i++) {
      const { status } = await wrong.get('/users/me');
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    // About 100 tries: the key fetches above spent two, and the bucket refills a little meanwhile.
    assert.ok(Math.abs((statuses.get(401) ?? 0) - 100) <= 5, `401s: ${statuses.get(401)}`);
    assert.is((statuses.get(401) ?? 0) + (statuses.get(429) ?? 0), 300);

    // Alert words: hamlet (subscribed to Verona) with a thousand words, every one of them matched.
    const message = (i: number) => `Status update ${i}: the deploy of build ${i} went fine, nothing to report.`;
    const before = await median(await sendTimes(iago, 200, message));
    const words = Array.from({ length: 1000 }, (_, i) => `keyword${i}`);
    assert.is((await hamlet.post('/users/me/alert_words', { alert_words: words })).status, 200);
    const after = await median(await sendTimes(iago, 200, message));
    const flagsOf = async (content: string) => {
      const id = Number((await iago.post('/messages', { type: 'stream', to: 'Verona', topic: 'abuse', content })).body.id);
      return ((await hamlet.get(`/messages/${id}`)).body.message as { flags: string[] }).flags;
    };
    assert.ok((await flagsOf('the last one, KEYWORD999, and the first, keyword0')).includes('has_alert_word'), 'a word of the thousand is matched');
    assert.not.ok((await flagsOf('keyword1000 and keyword99x are not words of the list')).includes('has_alert_word'));

    // 20 bodies of 3.9 MB at once: some are turned away (503) rather than held all at once.
    const rssBefore = rssMb(server);
    const big = `content=${'y'.repeat(3_900_000)}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        rawRequest(server.baseUrl, { method: 'POST', path: '/api/v1/messages', headers: { ...iago.authHeader(), 'Content-Type': 'application/x-www-form-urlencoded' }, body: big }).catch(() => ({ status: 0 })),
      ),
    );
    const busy = answers.filter((answer) => answer.status === 503).length;
    const rssPeak = rssMb(server);
    assert.ok(answers.every((answer) => answer.status === 400 || answer.status === 503), `answers: ${answers.map((answer) => answer.status).join(' ')}`);
    assert.ok(rssPeak - rssBefore < 400, `RSS grew ${(rssPeak - rssBefore).toFixed(0)} MB for 20 large bodies`);

    // Queues without end: the hundred-and-first is refused.
    let registered = 0;
    for (let i = 0; i < 150; i++) if ((await hamlet.post('/register', { fetch_event_types: [] })).status === 200) registered++;
    assert.ok(registered <= 100, `${registered} queues held at once`);

    report('abuse', {
      'wrong keys 401/429': `${statuses.get(401)}/${statuses.get(429)}`,
      'send p50 ms, no alert words': before.toFixed(2),
      'with 1,000 alert words': after.toFixed(2),
      'large bodies refused 503 of 20': busy,
      'RSS MB before/after': `${rssBefore.toFixed(0)}/${rssPeak.toFixed(0)}`,
      'queues held (of 150 tries + 1)': registered,
    });
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
