// Assertions uvu does not have.
import * as assert from 'uvu/assert';

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
