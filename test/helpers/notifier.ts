// Following the realm's notifier from a test: how many passes it has recorded (its settle
// commands, from the command metrics), to wait for a pass to be over before moving the clock.
import type { TestServer } from './server.js';

export async function settlements(server: TestServer): Promise<number> {
  const text = await server.config.metrics.registry.getSingleMetricAsString('parley_command_duration_seconds');
  const counts = text.matchAll(/^parley_command_duration_seconds_count\{command="notifications\.settle",[^}]*\} (\d+)$/gm);
  return [...counts].reduce((sum, [, count]) => sum + Number(count), 0);
}

/** Waits until an asynchronous condition holds (5 s at most). */
export async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; !(await condition()); tries++) {
    if (tries > 500) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits until the notifier has recorded one more pass than `before`. */
export const nextSettlement = (server: TestServer, before: number): Promise<void> => until(async () => (await settlements(server)) > before);
