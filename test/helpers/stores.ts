// Stores in temporary directories for the store's own tests, and what those tests share: a
// refused write, a write replicated to a copy by its change set, deterministic randomness.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as assert from 'uvu/assert';
import { Store } from '../../src/store/store.js';

/** A channel message of realm 1 holding one word. */
export const message = (id: number, word: string) => ({ id, realmId: 1, senderId: 2, recipientId: 3, type: 'stream' as const, channelId: 4, topic: 't', participants: [], content: word, renderedContent: `<p>${word}</p>`, timestamp: 0, client: 'test' });

export function tempStorePath(): string {
  return join(mkdtempSync(join(tmpdir(), 'parley-store-')), 'parley.mdb');
}

/** A store on `path` that does not flush its commits to disk (PARLEY_STORE_SYNC=false): what a
 * reopen in the same test reads is the same, and the tests run faster. */
export const testStore = (path: string): Store => new Store(path, { sync: false });

/** Waits for a write that throws Error('refused'), and checks that it was refused. */
export async function refused(write: Promise<unknown>): Promise<void> {
  await write.then(
    () => assert.unreachable('the write was refused'),
    (error: Error) => assert.is(error.message, 'refused'),
  );
}

/** Runs `fn` as a recorded write of `writer` and applies its change set to `copy`, as a realm
 * log's replay does (indexing the messages it puts or removes). */
export async function replicate(writer: Store, copy: Store, fn: () => void): Promise<void> {
  const { changes } = await writer.recordedWrite(fn);
  await copy.applyChanges(changes, { reindex: true });
}

/** Removes the data directories of closed stores. */
export function removeStores(...paths: string[]): void {
  for (const path of paths) rmSync(dirname(path), { recursive: true, force: true });
}

/** A deterministic pseudo-random sequence (the same rows every run). */
export function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}
