// Starts a real Parley server for a test: 127.0.0.1, a port the OS picks, a fresh data directory.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startParley, startThreaded, type Parley, type ParleyParts } from '../../src/app.js';
import type { Realms } from '../../src/realm/registry.js';
import { loadConfig, type Config } from '../../src/config.js';
import { Agent } from 'node:http';
import { ApiClient, type Credentials } from './client.js';
import { developmentKey } from './operator.js';

export interface TestServer {
  parley: Parley;
  config: Config;
  baseUrl: string;
  /** A client without credentials. */
  anonymous: ApiClient;
  /** A client with these credentials (and this Host, which names the realm), on the server's
   * kept-alive connections. */
  client(credentials?: Credentials, host?: string): ApiClient;
  /** A client authenticated as a demo user, by e-mail (key from the development key fetch). */
  as(email: string): Promise<ApiClient>;
  stop(): Promise<void>;
}

/** The tests' configuration, as a server's environment. Tests send far more than a person would;
 * rate limits are on only where a test asks for them. Their logs show warnings and errors only
 * (PARLEY_LOG_LEVEL=info shows every request). For speed, what a test never loses: commits are not
 * flushed to disk (a crash of the machine is no test's), password hashes take scrypt's least cost,
 * and a stopping server waits for no late request (a test that sends one sets a quiet time of its
 * own). Messages render on the realm's thread unless a test asks for render workers
 * (renderWorkers.test.ts). */
const TEST_ENV = {
  PARLEY_LOG_LEVEL: process.env.PARLEY_LOG_LEVEL || 'warn',
  PARLEY_STORE_SYNC: 'false',
  PARLEY_PASSWORD_HASH_COST: '4',
  PARLEY_SHUTDOWN_QUIET_MS: '0',
  PARLEY_RATE_LIMITS: 'false',
  PARLEY_RENDER_THREADS: '0',
};

/** Threads of the servers tests start (PARLEY_TEST_THREADS; `npm run test:threads` runs the suite
 * with 3): above 1, a server a test asks for with no overrides and no parts runs as `npm start`
 * runs one with PARLEY_THREADS — its realms on a thread of their own, an I/O thread beside the main
 * one — so that the API's tests check that clients see the same server whatever its threads. */
const TEST_THREADS = Number(process.env.PARLEY_TEST_THREADS || 1);

/** What a test that reaches the realms in its own memory (`parley.realms`, `parley.queues`) starts
 * its server with: one thread, whatever PARLEY_TEST_THREADS says. */
export const IN_MEMORY: Partial<Config> = { threads: 1 };

export function testConfig(overrides: Partial<Config> = {}): Config {
  // A fresh data directory unless the test brings one (a restart on the same data, say).
  const dataDir = overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'parley-test-'));
  return { ...loadConfig(TEST_ENV), host: '127.0.0.1', port: 0, ...overrides, dataDir };
}

/** The last threaded server's start: the next waits for it, as its threads read the environment. */
let threadedStart: Promise<unknown> = Promise.resolve();

/** A server of TEST_THREADS threads on the test configuration. Its threads load their
 * configuration from the environment, as `npm start`'s do, each when it starts: for that time the
 * environment's PARLEY_ settings are the test configuration's alone (not the shell's others, which
 * the main thread's configuration does not read either), so one server starts at a time. Its realms
 * are in another thread's memory: a test that reaches them runs on one thread. */
function startThreadedTestServer(config: Config): Promise<Parley> {
  const started = threadedStart.then(() => startThreadedOnce(config));
  threadedStart = started.catch(() => undefined);
  return started;
}

async function startThreadedOnce(config: Config): Promise<Parley> {
  const before = { ...process.env };
  for (const name of Object.keys(process.env)) if (name.startsWith('PARLEY_')) delete process.env[name];
  Object.assign(process.env, TEST_ENV, { PARLEY_DATA_DIR: config.dataDir });
  try {
    const server = await startThreaded({ ...config, threads: TEST_THREADS });
    return {
      ...server,
      get realms(): Realms {
        throw new Error('the realms are on another thread: a test that reaches them runs without PARLEY_TEST_THREADS');
      },
    };
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in before)) delete process.env[name];
    Object.assign(process.env, before);
  }
}

/** The seeded data directories servers start from, by the overrides they were made with. */
const templates = new Map<string, string>();
process.on('exit', () => {
  for (const dir of templates.values()) rmSync(dir, { recursive: true, force: true });
});

/** What names a template: the overrides as JSON, when JSON says all of them (no function, no
 * class instance: a clock, say, is no template's); undefined otherwise. */
function templateKey(overrides: Partial<Config>): string | undefined {
  let faithful = true;
  const key = JSON.stringify(overrides, (_name, value: unknown) => {
    const plain = value === null || typeof value !== 'object' || Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype;
    if (typeof value === 'function' || typeof value === 'bigint' || !plain) faithful = false;
    return value;
  });
  return faithful ? key : undefined;
}

/** A fresh data directory holding what a first start seeds (the demo realm), copied from one
 * seeded once per process and set of overrides, as Zulip's tests clone a template database: a
 * first start's seeding is most of its time. Only a test that brings no data directory, no parts
 * and only overrides JSON can name gets one. */
async function seededDataDir(overrides: Partial<Config>, parts: ParleyParts): Promise<string | undefined> {
  const key = overrides.dataDir === undefined && Object.keys(parts).length === 0 ? templateKey(overrides) : undefined;
  if (key === undefined) return undefined;
  let template = templates.get(key);
  if (template === undefined) {
    const config = testConfig(overrides);
    await (await startParley(config)).close();
    template = config.dataDir;
    templates.set(key, template);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-test-'));
  cpSync(template, dataDir, { recursive: true, filter: (source) => !source.endsWith('-lock') });
  return dataDir;
}

export async function startTestServer(overrides: Partial<Config> = {}, parts: ParleyParts = {}): Promise<TestServer> {
  const dataDir = await seededDataDir(overrides, parts);
  const config = testConfig(dataDir === undefined ? overrides : { ...overrides, dataDir });
  const threaded = TEST_THREADS > 1 && Object.keys(overrides).length === 0 && Object.keys(parts).length === 0;
  const parley = threaded ? await startThreadedTestServer(config) : await startParley(config, parts);
  const baseUrl = `http://127.0.0.1:${parley.http.port}`;
  // The test's clients keep their connections open, as real clients do, and share them; the
  // server's close answers what is in flight and closes them.
  const agent = new Agent({ keepAlive: true });
  const client = (credentials?: Credentials, host?: string) => new ApiClient(baseUrl, credentials, host, agent);
  const anonymous = client();
  const keys = new Map<string, ApiClient>();
  return {
    parley,
    config,
    baseUrl,
    anonymous,
    client,
    async as(email) {
      let known = keys.get(email);
      if (!known) {
        known = client({ email, apiKey: threaded ? await developmentKey(anonymous, email) : await keyInMemory(parley, email) });
        keys.set(email, known);
      }
      return known;
    },
    async stop() {
      await parley.close();
      agent.destroy();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

/** A demo user's API key, from the realm in this thread's memory. */
async function keyInMemory(parley: Parley, email: string): Promise<string> {
  const realm = parley.realms.forHost('');
  if (!realm) throw new Error('no default realm');
  return (await realm.ask('users.apiKey', null, { email })).apiKey;
}

/** Waits until a condition holds, checking every few milliseconds, for at most `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
