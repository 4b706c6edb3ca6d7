// Assertions uvu does not have.
import * as assert from 'uvu/assert';
import type { ApiClient } from './client.js';

/** Asserts that a promise rejects with an error whose message matches. */
export async function rejects(run: () => Promise<unknown>, pattern: RegExp, message?: string): Promise<void> {
  try {
    await run();
  } catch (error) {
    assert.match(String((error as Error).message), pattern, message);
    return;
  }
  assert.unreachable(message ?? `expected a rejection matching ${pattern}`);
}

type Endpoint = readonly [method: string, path: string];

/** Asserts that each endpoint answers 401 without credentials and with a wrong API key. */
export async function assertRequiresCredentials(anonymous: ApiClient, endpoints: readonly Endpoint[]): Promise<void> {
  const wrongKey = anonymous.withCredentials({ email: 'hamlet@zulip.com', apiKey: 'not-the-key' });
  for (const [method, path] of endpoints) {
    assert.is((await anonymous.call(method, path)).status, 401, `${method} ${path} without credentials`);
    assert.is((await wrongKey.call(method, path)).status, 401, `${method} ${path} with a wrong key`);
  }
}
