// Running the load tool (`npm run load`) as a person would, as a child process against a server
// process: its exit status, its output, and the report it wrote.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadReport } from '../../bench/load/report.js';
import { devClient, tempDataDir } from './operator.js';
import { spawnServer, type ServerProcess } from './process.js';

const cli = new URL('../../../build/bench/load/cli.js', import.meta.url).pathname;

export interface ToolRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The report, when the run wrote one. */
  report: LoadReport | undefined;
  out: string;
}

/** A fresh server process and its administrator's key (iago, the demo realm's admin). */
export async function serverWithAdmin(): Promise<{ server: ServerProcess; adminArgs: string[] }> {
  const server = await spawnServer({ PARLEY_DATA_DIR: tempDataDir('parley-load-') });
  const iago = await devClient(server.baseUrl, 'iago@zulip.com');
  return { server, adminArgs: ['--admin', iago.email, '--admin-key', iago.credentials!.apiKey] };
}

/** Runs the tool with `args` (an --out directory is added), bounded in time; `onLine` sees each
 * line it prints as it prints it (and the tool's process, to signal it). */
export function runTool(args: string[], onLine: (line: string, tool: ChildProcess) => void = () => {}, timeoutMs = 60_000): Promise<ToolRun> {
  const out = tempDataDir('parley-load-report-');
  const child = spawn(process.execPath, [cli, ...args, '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (data: Buffer) => {
    const lines = data.toString().split('\n').filter((line) => line !== '');
    stdout += data.toString();
    for (const line of lines) onLine(line, child);
  });
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.on('exit', (status) => {
      clearTimeout(timer);
      const file = join(out, 'report.json');
      resolve({ status, stdout, stderr, out, report: existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LoadReport) : undefined });
    });
  });
}
