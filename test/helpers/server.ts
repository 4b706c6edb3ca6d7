// Starts a real Parley server for a test: 127.0.0.1, a port the OS picks, a fresh data directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startParley, type Parley, type ParleyParts } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { ApiClient } from './client.js';

export interface TestServer {
  parley: Parley;
  config: Config;
  baseUrl: string;
  /** A client without credentials. */
  anonymous: ApiClient;
  /** A client authenticated as a demo user, by e-mail (key from the development key fetch). */
  as(email: string): Promise<ApiClient>;
  stop(): Promise<void>;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  // A fresh data directory unless the test brings one (a restart on the same data, say).
  const dataDir = overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'parley-test-'));
  // Tests send far more than a person would; rate limits are on only where a test asks for them.
  // Their logs show warnings and errors only (PARLEY_LOG_LEVEL=info shows every request).
  // For speed, what a test never loses: commits are not flushed to disk (a crash of the machine is
  // no test's), password hashes take scrypt's least cost, and a stopping server waits for no late
  // request (a test that sends one sets a quiet time of its own). Messages render on the realm's
  // thread unless a test asks for render workers (renderWorkers.test.ts).
  const config = loadConfig({ PARLEY_LOG_LEVEL: process.env.PARLEY_LOG_LEVEL || 'warn', PARLEY_STORE_SYNC: 'false', PARLEY_PASSWORD_HASH_COST: '4', PARLEY_SHUTDOWN_QUIET_MS: '0' });
  return { ...config, host: '127.0.0.1', port: 0, rateLimits: { ...config.rateLimits, enabled: false }, renderThreads: 0, ...overrides, dataDir };
}

export async function startTestServer(overrides: Partial<Config> = {}, parts: ParleyParts = {}): Promise<TestServer> {
  const config = testConfig(overrides);
  const parley = await startParley(config, parts);
  const baseUrl = `http://127.0.0.1:${parley.http.port}`;
  const anonymous = new ApiClient(baseUrl);
  const keys = new Map<string, ApiClient>();
  return {
    parley,
    config,
    baseUrl,
    anonymous,
    async as(email) {
      let client = keys.get(email);
      if (!client) {
        const realm = parley.realms.forHost('');
        if (!realm) throw new Error('no default realm');
        const { apiKey } = await realm.ask('users.apiKey', null, { email });
        client = new ApiClient(baseUrl, { email, apiKey });
        keys.set(email, client);
      }
      return client;
    },
    async stop() {
      await parley.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits until a condition holds, checking every few milliseconds, for at most `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
