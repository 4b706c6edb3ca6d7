// The contract scripts rely on (issue #34): `npm run load -- --target URL --admin … --admin-key …
// --users N --rate R --duration S --out DIR` against a server the tool did not start exits 0 and
// writes report.json with the promised fields and a report.html that needs no network; a run
// without a target, or with a bad scenario, is refused with a clear message.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDataDir } from '../helpers/operator.js';
import type { ServerProcess } from '../helpers/process.js';
import { runTool, serverWithAdmin } from '../helpers/loadTool.js';

const contract = suite<{ server: ServerProcess; adminArgs: string[] }>('load tool contract');

contract.before(async (context) => {
  Object.assign(context, await serverWithAdmin());
});
contract.after(async ({ server }) => {
  server.child.kill('SIGTERM');
  await server.exited;
});

const STATS = ['count', 'errors', 'p50_ms', 'p90_ms', 'p99_ms', 'max_ms'];

contract('a run against a server it did not start writes the promised report and exits 0', async ({ server, adminArgs }) => {
  const run = await runTool(['--target', server.baseUrl, ...adminArgs, '--users', '4', '--rate', '10', '--duration', '2', '--ramp-up', '0.5', '--ramp-down', '0.5', '--workers', '2']);
  assert.is(run.status, 0, run.stderr);
  const report = run.report!;
  assert.is(report.rate.requested, 10);
  assert.ok(report.rate.achieved > 8 && report.rate.achieved <= 11, `achieved ${report.rate.achieved}`);
  for (const stat of STATS) {
    assert.type(report.operations.send![stat as 'count'], 'number', `operations.send.${stat}`);
    assert.type(report.delivery[stat as 'count'], 'number', `delivery.${stat}`);
  }
  // About 10/s for 2.5 s of full rate; every message reaches its channel's 4 users (or a DM's 2).
  assert.ok(report.operations.send!.count >= 20, `sends ${report.operations.send!.count}`);
  assert.is(report.operations.send!.errors, 0);
  assert.ok(report.delivery.count >= 2 * report.operations.send!.count);
  assert.is(report.delivery.lost, 0);
  assert.is(report.delivery.duplicated, 0);
  assert.is(report.delivery.delivered, report.delivery.expected);
  assert.ok(report.server.zulip_feature_level > 0 && report.server.zulip_version.length > 0);
  assert.ok(report.timeline.length >= 3, 'a per-second timeline');
  assert.equal(report.stream.transports, { websocket: 4 }, "Parley's WebSocket stream is used where it is offered");
  const html = readFileSync(join(run.out, 'report.html'), 'utf8');
  assert.ok(html.includes('<svg'), 'charts drawn inline');
  assert.not.match(html, /<script|<link|\bsrc=|\bhref=|url\(|@import/, 'nothing fetched: the report opens without a network');
});

contract("long-polling GET /events, as Zulip's own clients read events: every delivery seen once", async ({ server, adminArgs }) => {
  const run = await runTool(['--target', server.baseUrl, ...adminArgs, '--users', '3', '--rate', '10', '--duration', '1', '--ramp-up', '0.5', '--ramp-down', '0.5', '--workers', '1', '--event-stream', 'long-poll', '--prefix', 'poll']);
  assert.is(run.status, 0, run.stderr);
  assert.equal(run.report!.stream.transports, { 'long-poll': 3 });
  assert.ok(run.report!.delivery.expected > 0);
  assert.is(run.report!.delivery.lost, 0);
  assert.is(run.report!.delivery.duplicated, 0);
});

contract('Ctrl-C mid-run: the tool stops cleanly, exits 0 and reports what ran', async ({ server, adminArgs }) => {
  const args = ['--target', server.baseUrl, ...adminArgs, '--users', '3', '--rate', '10', '--duration', '60', '--ramp-up', '0', '--workers', '1', '--prefix', 'stopped'];
  const run = await runTool(args, (line, tool) => {
    if (line.startsWith('server:')) setTimeout(() => tool.kill('SIGINT'), 2000);
  });
  assert.is(run.status, 0, run.stderr);
  const report = run.report!;
  assert.is(report.interrupted, true);
  assert.ok(report.operations.send!.count >= 10 && report.operations.send!.count < 100, `sends ${report.operations.send!.count}`);
  assert.ok(report.tool_health.skipped > 400, 'the rest of the schedule was not started');
  assert.is(report.delivery.lost, 0, 'what was sent was waited for');
  assert.match(report.tool_health.warnings.join(' '), /stopped early/);
});

contract('no --target: refused with a clear message and a non-zero exit', async ({ adminArgs }) => {
  const run = await runTool([...adminArgs, '--users', '2']);
  assert.is(run.status, 2);
  assert.match(run.stderr, /--target URL is required/);
  assert.is(run.report, undefined);
});

contract('a bad scenario file: refused, naming the field', async ({ server, adminArgs }) => {
  const file = join(tempDataDir('parley-load-scenario-'), 'scenario.yaml');
  writeFileSync(file, 'channels: 2\noperations:\n  fetch: { per_user_per_sec: 1 }\n');
  const run = await runTool(['--target', server.baseUrl, ...adminArgs, '--scenario', file]);
  assert.is(run.status, 1);
  assert.match(run.stderr, /scenario .*scenario\.yaml: unknown field 'operations\.fetch\.per_user_per_sec'/);
  writeFileSync(file, '{"dm_share": 2}');
  const again = await runTool(['--target', server.baseUrl, ...adminArgs, '--scenario', file]);
  assert.match(again.stderr, /field 'dm_share' must be <= 1/);
});

contract.run();
