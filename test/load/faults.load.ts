// The load tool against a server that misbehaves mid-run: paused (SIGSTOP for a second, then
// SIGCONT) — the open model shows that second in the send latencies and no message is lost; and
// behind a proxy that drops every event-stream connection — the tool reconnects, resumes, loses
// nothing and counts nothing twice.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startFrontProxy } from '../helpers/frontProxy.js';
import { runTool, serverWithAdmin } from '../helpers/loadTool.js';
import type { ServerProcess } from '../helpers/process.js';

const faults = suite<{ server: ServerProcess; adminArgs: string[] }>('load tool against a misbehaving server');

faults.before(async (context) => {
  Object.assign(context, await serverWithAdmin());
});
faults.after(async ({ server }) => {
  server.child.kill('SIGCONT');
  server.child.kill('SIGTERM');
  await server.exited;
});

const RUN = ['--users', '4', '--rate', '20', '--duration', '4', '--ramp-up', '0.5', '--ramp-down', '0.5', '--workers', '2'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `fault` once, 1.5 s after the tool has said it is starting the run (its 'server:' line). */
function midRun(fault: () => Promise<void>): { onLine: (line: string) => void; done: Promise<void> } {
  let begin!: () => void;
  const started = new Promise<void>((resolve) => (begin = resolve));
  return {
    onLine: (line) => {
      if (line.startsWith('server:')) begin();
    },
    done: started.then(() => sleep(1500)).then(fault),
  };
}

faults('a server paused for a second shows that second in send p99/max and loses nothing', async ({ server, adminArgs }) => {
  const pause = midRun(async () => {
    server.child.kill('SIGSTOP');
    await sleep(1000);
    server.child.kill('SIGCONT');
  });
  const run = await runTool(['--target', server.baseUrl, ...adminArgs, ...RUN, '--prefix', 'paused'], pause.onLine);
  await pause.done;
  assert.is(run.status, 0, run.stderr);
  const { send } = run.report!.operations;
  // About 20 sends were due in the paused second: more than 1% of the ~90, so p99 shows it too.
  assert.ok(send!.max_ms >= 900, `send max ${send!.max_ms} ms`);
  assert.ok(send!.p99_ms >= 800, `send p99 ${send!.p99_ms} ms`);
  assert.ok(run.report!.delivery.max_ms >= 900, `delivery max ${run.report!.delivery.max_ms} ms`);
  assert.is(send!.errors, 0);
  assert.is(run.report!.delivery.lost, 0);
  assert.is(run.report!.delivery.duplicated, 0);
  const slowest = Math.max(...run.report!.timeline.map((row) => row.send_max_ms));
  assert.ok(slowest >= 900, 'the timeline shows the stalled second');
});

faults('dropped event-stream connections: the tool reconnects, loses nothing, counts nothing twice', async ({ server, adminArgs }) => {
  const proxy = await startFrontProxy(Number(new URL(server.baseUrl).port));
  let cut = 0;
  const drop = midRun(async () => {
    cut = proxy.cutWebSockets();
  });
  try {
    const run = await runTool(['--target', proxy.url, ...adminArgs, ...RUN, '--prefix', 'dropped'], drop.onLine);
    await drop.done;
    assert.is(run.status, 0, run.stderr);
    assert.is(cut, 4, 'each user had a WebSocket stream through the proxy');
    const report = run.report!;
    assert.ok(report.stream.reconnects >= 4, `reconnects ${report.stream.reconnects}`);
    assert.is(report.operations.send!.errors, 0);
    assert.ok(report.delivery.expected > 0);
    assert.is(report.delivery.lost, 0);
    assert.is(report.delivery.duplicated, 0);
    assert.is(report.delivery.delivered, report.delivery.expected);
  } finally {
    await proxy.close();
  }
});

faults.run();
