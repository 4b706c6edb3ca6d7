// `load agent` and `load coordinate`: a run spread over two agents (here both on loopback, as two
// machines would be) merges their workers' measurements into one report, nothing lost or counted
// twice; and the documentation's option table lists every option the command line takes.
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startAgent } from '../../bench/load/agent.js';
import { USAGE } from '../../bench/load/options.js';
import { runTool, serverWithAdmin } from '../helpers/loadTool.js';

const agents = suite('load agents and coordinator');

agents('a run over two agents is one report: every worker counted once, nothing lost', async () => {
  const { server, adminArgs } = await serverWithAdmin();
  const started = await Promise.all([startAgent('127.0.0.1', 0), startAgent('127.0.0.1', 0)]);
  try {
    const run = await runTool(['coordinate', '--agents', started.map((agent) => agent.url.replace('http://', '')).join(','), '--target', server.baseUrl, ...adminArgs, '--users', '4', '--rate', '10', '--duration', '2', '--ramp-up', '0.5', '--ramp-down', '0.5']);
    assert.is(run.status, 0, run.stderr);
    const report = run.report!;
    assert.is(report.workers, 2);
    assert.equal(report.stream.transports, { websocket: 4 }, "each user's stream opened once, by one agent's worker");
    // 10/s over 2 s steady and two half-second ramps: 25 slots, started once between the agents.
    assert.is(report.operations.send!.count, 25);
    assert.ok(report.delivery.expected > 25);
    assert.is(report.delivery.lost, 0);
    assert.is(report.delivery.duplicated, 0);
  } finally {
    for (const agent of started) agent.close();
    server.child.kill('SIGTERM');
    await server.exited;
  }
});

agents('docs/load-testing.md and the usage text name every option the command line takes', () => {
  const docs = readFileSync(new URL('../../../docs/load-testing.md', import.meta.url), 'utf8');
  const source = readFileSync(new URL('../../../bench/load/options.ts', import.meta.url), 'utf8');
  const block = source.slice(source.indexOf('const OPTIONS = {'), source.indexOf('} as const;'));
  const names = [...block.matchAll(/^\s+'?([a-z-]+)'?: \{ type/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
  assert.ok(names.length > 20);
  for (const name of names) {
    assert.ok(docs.includes(`--${name}`), `docs/load-testing.md names --${name}`);
    assert.ok(USAGE.includes(`--${name}`), `the usage text names --${name}`);
  }
});

agents.run();
