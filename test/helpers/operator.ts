// What tests that run the server as an operator would share: temporary data directories, a client
// for a demo user of a server process, and the figures a fault test prints.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from './client.js';

export const tempDataDir = (prefix = 'parley-'): string => mkdtempSync(join(tmpdir(), prefix));

/** A demo user's client on a development server (its key from the development key fetch). */
export async function devClient(baseUrl: string, email: string): Promise<ApiClient> {
  return new ApiClient(baseUrl, { email, apiKey: await developmentKey(new ApiClient(baseUrl), email) });
}

/** A demo user's API key, as a development client fetches it (through `anonymous`). */
export async function developmentKey(anonymous: ApiClient, email: string): Promise<string> {
  const fetched = await anonymous.post('/dev_fetch_api_key', { username: email });
  if (fetched.status !== 200) throw new Error(`no key for ${email}: ${JSON.stringify(fetched.body)}`);
  return String(fetched.body.api_key);
}

/** Prints a fault test's figures where CI output shows them. */
export function report(name: string, figures: Record<string, string | number>): void {
  console.log(`\n  ${name}: ${Object.entries(figures).map(([key, value]) => `${key} ${value}`).join(', ')}`);
}
