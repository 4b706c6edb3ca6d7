// Send benchmark: POST /messages through HTTP on loopback against a server it starts (the demo
// realm), one request at a time; p50/p99 latency for a short chat line and for a long message
// with code and math (render.ts's two messages).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ApiClient } from '../test/helpers/client.js';
import { spawnServer } from '../test/helpers/process.js';
import { longMessage, shortMessage } from './render.js';
import { percentile, printTable, writeResult, type Row } from './lib/stats.js';

export interface SendOptions {
  sends: number;
  quick: boolean;
}

async function sendAll(client: ApiClient, content: string, count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const response = await client.post('/messages', { type: 'stream', to: 'Verona', topic: `bench ${i % 20}`, content });
    latencies.push(performance.now() - start);
    if (response.status !== 200) throw new Error(JSON.stringify(response.body));
  }
  return latencies;
}

export async function runSend(options: SendOptions): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-send-'));
  const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'development' });
  try {
    const key = await new ApiClient(server.baseUrl).post('/dev_fetch_api_key', { username: 'iago@zulip.com' });
    const client = new ApiClient(server.baseUrl, { email: 'iago@zulip.com', apiKey: String(key.body.api_key) });
    await sendAll(client, shortMessage, Math.min(100, options.sends));
    const rows: Row[] = [];
    for (const [name, content] of [
      ['short text', shortMessage],
      ['long with code and math', longMessage],
    ] as const) {
      const latencies = await sendAll(client, content, options.sends);
      rows.push({ message: name, sends: options.sends, 'p50 ms': percentile(latencies, 50), 'p99 ms': percentile(latencies, 99) });
    }
    printTable(`send: POST /messages through HTTP, one at a time`, rows);
    console.log(`results: ${writeResult(options.quick ? 'send-quick' : 'send', { options, rows })}`);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}
