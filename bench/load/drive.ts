// Drives runners through one run: starts them together, prints a live line each second on a
// terminal, and once the schedule is spent waits for outstanding deliveries (up to the delivery
// bound) before collecting. Ctrl-C stops the schedule and still collects; a second Ctrl-C stops
// waiting for deliveries.
import { cpus } from 'node:os';
import { merge, summarize } from './histogram.js';
import { mergeMeasurements, type Measurements } from './measurements.js';
import type { Progress } from './plan.js';
import type { Runner } from './runner.js';

export interface Driven {
  measurements: Measurements;
  startAt: number;
  endedAt: number;
  interrupted: boolean;
  /** CPU seconds this process (every worker thread) used during the run. */
  toolCpuSeconds: number;
  /** Share of the machine's CPU time that was busy during the run (all processes). */
  machineBusy: number;
}

/** Total CPU time (busy, all) of the machine so far, in ms. */
function machineTimes(): { busy: number; all: number } {
  let busy = 0;
  let all = 0;
  for (const cpu of cpus()) {
    const { user, nice, sys, irq, idle } = cpu.times;
    busy += user + nice + sys + irq;
    all += user + nice + sys + irq + idle;
  }
  return { busy, all };
}

/** The live line: per operation, what the workers' last second held (count, p50, p99). */
function liveLine(seconds: number, progress: Progress[], requestedRate: number): string {
  const names = new Set(progress.flatMap((p) => Object.keys(p.interval)));
  const parts = [...names].map((name) => {
    const summary = summarize(merge(progress.map((p) => p.interval[name] ?? '')));
    return `${name} ${summary.count}/s p50 ${summary.p50_ms.toFixed(1)} p99 ${summary.p99_ms.toFixed(1)}`;
  });
  const total = (field: 'errors' | 'expected' | 'delivered') => progress.reduce((sum, p) => sum + p[field], 0);
  return `${String(seconds).padStart(4)}s  target ${requestedRate} sends/s  errors ${total('errors')}  delivered ${total('delivered')}/${total('expected')}  | ${parts.join(' | ')} ms`;
}

export async function drive(runners: readonly Runner[], options: { requestedRate: number; boundMs: number; maxSeconds: number; live: boolean; workers: number }): Promise<Driven> {
  // Every user's stream opens before the clock starts; a server that cannot manage that in two
  // minutes is not one to load.
  let waited: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (waited = setTimeout(() => reject(new Error('the event streams did not all open within 120 s')), 120_000)));
  await Promise.race([Promise.all(runners.map((runner) => runner.ready)), timeout]).finally(() => clearTimeout(waited));
  const startAt = Date.now() + 500;
  const cpuBefore = process.cpuUsage();
  const machineBefore = machineTimes();
  for (const runner of runners) runner.start(startAt);
  let interrupted = false;
  let hurry = false;
  const onSigint = () => {
    if (interrupted) hurry = true;
    interrupted = true;
    for (const runner of runners) runner.stop();
    process.stderr.write('\nstopping: finishing what is in flight (Ctrl-C again to stop waiting for deliveries)\n');
  };
  process.on('SIGINT', onSigint);
  let drainingSince: number | undefined;
  try {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const progress = runners.flatMap((runner) => runner.progress());
      if (options.live && process.stdout.isTTY && progress.length > 0) {
        process.stdout.write(`\r\x1b[K${liveLine(Math.round((Date.now() - startAt) / 1000), progress, options.requestedRate)}`);
      }
      if (hurry || Date.now() - startAt > options.maxSeconds * 1000) break;
      const allDone = progress.length === options.workers && progress.every((p) => p.scheduleDone && p.inFlight === 0);
      if (!allDone) continue;
      drainingSince ??= Date.now();
      const owed = progress.reduce((sum, p) => sum + p.expected - p.delivered - p.late, 0);
      if (owed <= 0 || Date.now() - drainingSince > options.boundMs) break;
    }
  } finally {
    process.off('SIGINT', onSigint);
    if (options.live && process.stdout.isTTY) process.stdout.write('\n');
  }
  const endedAt = Date.now();
  const cpuAfter = process.cpuUsage(cpuBefore);
  const machineAfter = machineTimes();
  const parts = (await Promise.all(runners.map((runner) => runner.finish()))).flat();
  return {
    measurements: mergeMeasurements(parts),
    startAt,
    endedAt,
    interrupted,
    toolCpuSeconds: (cpuAfter.user + cpuAfter.system) / 1e6,
    machineBusy: (machineAfter.busy - machineBefore.busy) / Math.max(1, machineAfter.all - machineBefore.all),
  };
}
