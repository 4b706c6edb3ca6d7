// Start-up benchmark (`npm run bench -- startup`): how long a server takes to start on a data
// directory, and how much memory it then holds, as the history grows with the same users. Each
// dataset (lib/dataset.ts) is built straight into a data directory, then served by a new process:
// the time to its listening line, to its first answered GET /users/me and to a register of the
// owner; its resident memory after the first request and after the register; then the server's CPU
// for each of the owner's registers once the first has read the owner's rows into memory. The
// owner has read all but the newest 1,000 messages, as a user who keeps up has. Each should stay
// flat as messages grow, but for the first register, which reads the owner's rows: nothing at
// start reads the history, and a register reads the unread messages, not the history.
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
import { cpuSeconds, pool, printTable, residentMemory, writeResult, type Row } from './lib/stats.js';

export interface StartupOptions {
  users: number;
  /** The history sizes measured, one data directory each. */
  messages: number[];
  quick: boolean;
}

const MIB = 1024 * 1024;
const OWNER_UNREAD = 1_000;
/** Registers measured once the owner's rows are in memory, after as many unmeasured (the JIT
 * compiles the path), and how many at once. */
const WARM_REGISTERS = 40;
const CONCURRENT_REGISTERS = 4;

/** Registers of the owner's, their queues deleted after: the server's CPU per register. */
async function registerMicros(client: ApiClient, pid: number): Promise<number> {
  const before = cpuSeconds(pid);
  const queues = await pool(Array.from({ length: WARM_REGISTERS }), CONCURRENT_REGISTERS, async () => {
    const registered = await client.post('/register', {});
    if (registered.status !== 200) throw new Error(JSON.stringify(registered.body));
    return String(registered.body.queue_id);
  });
  const micros = ((cpuSeconds(pid) - before) * 1e6) / WARM_REGISTERS;
  for (const queueId of queues) await client.delete('/events', { queue_id: queueId });
  return micros;
}

async function build(dataDir: string, users: number, messages: number): Promise<{ email: string; apiKey: string; seconds: number }> {
  const config = { ...loadConfig({}), dataDir, mode: 'production' as const };
  const store = openStore(config);
  const realms = new Realms(store, config, new EventQueues(store));
  const started = performance.now();
  const dataset = await buildDataset(realms, { users, channels: 50, perUser: 1, messages, ownerUnread: OWNER_UNREAD }, 'Startup');
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
    await registerMicros(client, server.child.pid!);
    const warmRegister = await registerMicros(client, server.child.pid!);
    return {
      'listening ms': listening,
      'first answer ms': answering,
      'registered ms': registering,
      'RSS started MiB': started.rss / MIB,
      'of it file MiB': started.file / MIB,
      'RSS registered MiB': afterRegister.rss / MIB,
      'of it file (registered) MiB': afterRegister.file / MIB,
      'register CPU µs': warmRegister,
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
  printTable(`startup: a new server process on a data directory (50 channels, each user in 1; the owner's newest ${OWNER_UNREAD.toLocaleString('en')} messages unread)`, rows);
  console.log(`results: ${writeResult(options.quick ? 'startup-quick' : 'startup', { options, rows })}`);
}
