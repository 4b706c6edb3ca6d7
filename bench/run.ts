// Benchmark runner: `npm run bench -- <fanout|flags|realms|render|send|startup|http|cluster|search|webhooks|all|instructions> [--quick] [--clients N] [--repeats R] [--rounds R] [--messages N] [--threads 1,2,4]`
// (`--threads`: the PARLEY_THREADS of each setup `send` measures).
// Every benchmark targets loopback only and is bounded in count and time. `all` runs the timed
// ones; `instructions` needs valgrind and runs on its own.
import { parseArgs } from 'node:util';
import { runCluster } from './cluster.js';
import { runFanout } from './fanout.js';
import { runFlags } from './flags.js';
import { runHttp } from './http.js';
import { runInstructions } from './instructions.js';
import { runRealms } from './realms.js';
import { runRender } from './render.js';
import { runSearch } from './search.js';
import { runSend, SEND_SETUPS } from './send.js';
import { runStartup } from './startup.js';
import { runWebhooks } from './webhooks.js';
import { measuredOn } from './lib/stats.js';

const { positionals, values } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { quick: { type: 'boolean', default: false }, clients: { type: 'string' }, repeats: { type: 'string' }, rounds: { type: 'string' }, messages: { type: 'string' }, threads: { type: 'string' } },
});

const benchmarks: Record<string, () => Promise<void>> = {
  fanout: () =>
    runFanout({
      clients: Number(values.clients ?? (values.quick ? 200 : 10_000)),
      repeats: Number(values.repeats ?? (values.quick ? 5 : 20)),
      timeoutMs: values.quick ? 60_000 : 600_000,
    }),
  flags: () =>
    runFlags({
      users: values.quick ? 10 : 100,
      channels: values.quick ? 6 : 50,
      messages: values.quick ? 12_000 : 200_000,
      repeats: Number(values.repeats ?? (values.quick ? 4 : 20)),
      quick: values.quick,
    }),
  realms: () => runRealms({ realms: 4, subscribers: 25, senders: 64, seconds: values.quick ? 3 : 10, rounds: Number(values.rounds ?? (values.quick ? 1 : 3)), quick: values.quick }),
  render: async () => runRender({ iterations: values.quick ? 2_000 : 20_000, quick: values.quick }),
  send: () =>
    runSend({
      subscribers: 100,
      senders: 64,
      seconds: values.quick ? 3 : 10,
      rounds: Number(values.rounds ?? (values.quick ? 1 : 3)),
      threads: values.threads === undefined ? SEND_SETUPS : values.threads.split(',').map(Number),
      quick: values.quick,
    }),
  startup: () => runStartup({ users: values.quick ? 50 : 1_000, messages: values.quick ? [1_000, 10_000] : [10_000, 100_000, 1_000_000], quick: values.quick }),
  http: () => runHttp({ seconds: values.quick ? 2 : 5, connections: values.quick ? [64] : [16, 64, 256], quick: values.quick }),
  search: () =>
    runSearch({
      messages: Number(values.messages ?? (values.quick ? 20_000 : 1_000_000)),
      repeats: Number(values.repeats ?? (values.quick ? 20 : 50)),
      quick: values.quick,
    }),
  webhooks: () => runWebhooks({ subscribers: 10, senders: 16, seconds: values.quick ? 2 : 10, rounds: values.quick ? 50 : 500, quick: values.quick }),
  cluster: () =>
    runCluster({
      sendSeconds: values.quick ? 2 : 10,
      senders: 16,
      fanoutClients: Number(values.clients ?? (values.quick ? 200 : 4_000)),
      fanoutRepeats: Number(values.repeats ?? (values.quick ? 3 : 10)),
      failoverRounds: values.quick ? 2 : 10,
      presenceUsers: values.quick ? 500 : 5_000,
      presenceRounds: values.quick ? 2 : 5,
      quick: values.quick,
    }),
};

/** Run only by name: not part of `all`. */
const apart: Record<string, () => Promise<void>> = {
  instructions: () => runInstructions({ warm: values.quick ? 200 : 1_000, messages: Number(values.messages ?? (values.quick ? 200 : 1_000)), quick: values.quick }),
};

const name = positionals[0] ?? 'all';
const machine = measuredOn();
console.log(`measured on: ${machine.cpus} × ${machine.cpu}, ${machine.memoryGiB} GiB, Node ${machine.node}, commit ${machine.commit}`);
const selected = name === 'all' ? Object.keys(benchmarks) : [name];
for (const benchmark of selected) {
  const run = benchmarks[benchmark] ?? apart[benchmark];
  if (!run) {
    console.error(`unknown benchmark '${benchmark}'; known: ${[...Object.keys(benchmarks), 'all', ...Object.keys(apart)].join(', ')}`);
    process.exit(2);
  }
  await run();
}
