// Start-up benchmark (`npm run bench -- startup`): how long a server takes to start on a data
// directory, and how much memory it then holds, as the history grows with the same users. Each
// dataset (lib/dataset.ts) is built straight into a data directory, then served by a new process:
// the time to its listening line, to its first answered GET /users/me and to a register of the
// owner; its resident memory after the first request and after the register. Both should stay flat
// as messages grow: nothing at start reads the history.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/setup.js';
import { loadConfig } from '../src/config.js';
import { EventQueues } from '../src/events/queues.js';
import { Realms } from '../src/realm/registry.js';
import { ApiClient } from '../test/helpers/client.js';
import { spawnServer } from '../test/helpers/process.js';
import { buildDataset } from './lib/dataset.js';
import { printTable, residentMemory, writeResult, type Row } from './lib/stats.js';

export interface StartupOptions {
  users: number;
  /** The history sizes measured, one data directory each. */
  messages: number[];
  quick: boolean;
}

const MIB = 1024 * 1024;

async function build(dataDir: string, users: number, messages: number): Promise<{ email: string; apiKey: string; seconds: number }> {
  const config = { ...loadConfig({}), dataDir, mode: 'production' as const };
  const store = openStore(config);
  const realms = new Realms(store, config, new EventQueues(store));
  const started = performance.now();
  const dataset = await buildDataset(realms, { users, channels: 50, perUser: 1, messages }, 'Startup');
  await realms.idle();
  await store.close();
  return { email: dataset.ownerEmail, apiKey: dataset.apiKey, seconds: (performance.now() - started) / 1000 };
}

async function measure(dataDir: string, owner: { email: string; apiKey: string }): Promise<Row> {
  const spawned = performance.now();
  const server = await spawnServer({ PARLEY_DATA_DIR: dataDir, PARLEY_MODE: 'production', PARLEY_LOG_LEVEL: 'warn' });
  try {
    const listening = performance.now() - spawned;
    const client = new ApiClient(server.baseUrl, owner);
    const me = await client.get('/users/me');
    if (me.status !== 200) throw new Error(JSON.stringify(me.body));
    const answering = performance.now() - spawned;
    const started = residentMemory(server.child.pid!);
    const registered = await client.post('/register', {});
    if (registered.status !== 200) throw new Error(JSON.stringify(registered.body));
    const registering = performance.now() - spawned;
    const afterRegister = residentMemory(server.child.pid!);
    return {
      'listening ms': listening,
      'first answer ms': answering,
      'registered ms': registering,
      'RSS started MiB': started.rss / MIB,
      'of it file MiB': started.file / MIB,
      'RSS registered MiB': afterRegister.rss / MIB,
      'of it file (registered) MiB': afterRegister.file / MIB,
    };
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

export async function runStartup(options: StartupOptions): Promise<void> {
  const rows: Row[] = [];
  for (const messages of options.messages) {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-startup-'));
    try {
      console.log(`startup: building ${messages.toLocaleString('en')} messages, ${options.users} users`);
      const owner = await build(dataDir, options.users, messages);
      rows.push({ messages, users: options.users, 'build s': owner.seconds, ...(await measure(dataDir, owner)) });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  printTable('startup: a new server process on a data directory (50 channels, each user in 1)', rows);
  console.log(`results: ${writeResult(options.quick ? 'startup-quick' : 'startup', { options, rows })}`);
}
