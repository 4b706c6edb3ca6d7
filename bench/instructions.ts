// Instructions benchmark: the realm's side of sending a message (sendInProcess.ts: the bench's
// channel of 100 subscribers with queues, batches of 16, no HTTP), standalone and as a one-node
// cluster's realm (IDs in blocks, writes recorded and appended by the log's writer; NATS's side
// not counted), counted in instructions by
// valgrind's callgrind, which gives the same count for the same run on the same data whatever
// else the machine is doing, where the timed benchmarks move by a quarter on a shared machine.
// Node runs single-threaded and predictable (its compiler and collector on the main thread, in
// the same order each run). Two runs, of
// `messages` and of twice as many after the same warm-up, and their difference per message: the
// warm-up, start-up and loading cancel out. V8's optimizing compiler moves with any change to the
// code (it compiles what got hot, when), and the collector's work comes in lumps (a major
// collection falls in one run and not the other), so the figure that compares builds is the rest:
// the realm's own work ("mutator"). Its code is still the compiler's, and each run's realm is
// built anew (new random keys): builds that differ in nothing on this path, and the same build
// twice, moved it by up to 7 %, so it tells apart changes larger than that, which timed runs here
// cannot. Needs valgrind (Debian: apt-get install valgrind); not part of `all`.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildChannelRealm } from './lib/dataset.js';
import { printTable, writeResult } from './lib/stats.js';

export interface InstructionsOptions {
  /** Messages sent before the counted ones (the same in both runs). */
  warm: number;
  /** Messages counted: the second run sends twice as many. */
  messages: number;
  quick: boolean;
}

/** How many messages the realm takes in one batch (as it does at saturation). */
const BATCH = 16;

/** The functions whose inclusive counts are taken apart from the realm's own work. */
const COMPILER = 'v8::internal::compiler::PipelineCompilationJob::ExecuteJobImpl';
const COLLECTOR = ['v8::internal::Heap::CollectGarbage(', 'v8::internal::IncrementalMarking::Step('];

/** A run's main-thread instructions: all of them, the optimizing compiler's, the collector's. */
interface Count {
  total: number;
  compiler: number;
  collector: number;
}

const script = fileURLToPath(new URL('./lib/sendInProcess.js', import.meta.url));

const setups = [
  ['standalone', 'standalone'],
  ['cluster', 'one-node cluster (log in memory)'],
] as const;

/** Runs the sender under callgrind and reads its main thread's counts (callgrind_annotate). */
async function counted(setup: string, dataDir: string, outDir: string, warm: number, messages: number): Promise<Count> {
  const args = ['--tool=callgrind', '--separate-threads=yes', `--callgrind-out-file=${outDir}/callgrind.%p`, process.execPath, '--single-threaded', '--predictable', script, setup, dataDir, String(warm), String(messages), String(BATCH)];
  const child = spawn('valgrind', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`the sender under valgrind exited with ${code}: ${errors.slice(-2000)}`);
  const main = readdirSync(outDir).find((name) => name.endsWith('-01'));
  if (!main) throw new Error(`callgrind wrote no main thread's file in ${outDir}`);
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', join(outDir, main)], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const inclusive = (name: string): number => {
    const line = annotated.split('\n').find((text) => text.includes(name));
    return line ? Number(line.trim().split(' ')[0]!.replaceAll(',', '')) : 0;
  };
  return { total: inclusive('PROGRAM TOTALS'), compiler: inclusive(COMPILER), collector: COLLECTOR.reduce((sum, name) => sum + inclusive(name), 0) };
}

export async function runInstructions(options: InstructionsOptions): Promise<void> {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('the instructions benchmark needs valgrind (Debian: apt-get install valgrind)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-instructions-'));
  try {
    const template = join(dir, 'template');
    await buildChannelRealm(template, 99, 'count');
    const rows = [];
    for (const [setup, name] of setups) {
      // A setup's two runs at once (one core each): neither's count depends on the other.
      const [single, double] = await Promise.all(
        [options.messages, 2 * options.messages].map((messages) => {
          const dataDir = join(dir, `data-${setup}-${messages}`);
          const outDir = join(dir, `callgrind-${setup}-${messages}`);
          cpSync(template, dataDir, { recursive: true });
          mkdirSync(outDir);
          return counted(setup, dataDir, outDir, options.warm, messages);
        }),
      );
      const perMessage = (of: (count: Count) => number) => Math.round((of(double!) - of(single!)) / options.messages);
      rows.push({ setup: name, messages: options.messages, 'mutator instructions/message': perMessage((count) => count.total - count.compiler - count.collector) });
    }
    printTable(`instructions: the realm's side of a message to a channel of 100 subscribers with queues (callgrind, main thread; ${options.warm} messages of warm-up, then ${options.messages} against ${2 * options.messages})`, rows);
    console.log(`results: ${writeResult(options.quick ? 'instructions-quick' : 'instructions', { options, rows })}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
