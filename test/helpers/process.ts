// Runs Parley as a child process (the way `npm start` does), for restart and crash tests.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import pino from 'pino';
import { LISTENING_LINE } from '../../src/cli/processes.js';

const root = new URL('../../../', import.meta.url);
const mainScript = new URL('build/src/main.js', root).pathname;
const manageScript = new URL('build/src/cli/manage.js', root).pathname;

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/** Starts the server with the given environment on a free port; resolves once it listens. Rate
 * limits are off unless the environment turns them on (tests and benchmarks send in bulk). */
export function spawnServer(env: Record<string, string>, limits: { fileSizeLimitBlocks?: number } = {}): Promise<ServerProcess> {
  const fullEnv = { ...process.env, PARLEY_HOST: '127.0.0.1', PARLEY_PORT: '0', PARLEY_RATE_LIMITS: 'false', ...env };
  const [command, args] = limits.fileSizeLimitBlocks === undefined ? [process.execPath, [mainScript]] : underFileSizeLimit(limits.fileSizeLimitBlocks, [process.execPath, mainScript]);
  return listening(spawn(command, args, { env: fullEnv, stdio: ['ignore', 'pipe', 'inherit'] }));
}

/** A command line run under a file-size limit (ulimit -f, in 1,024-byte blocks): writes past it
 * fail with EFBIG, and SIGXFSZ is ignored so the process sees the error instead of being killed. */
export function underFileSizeLimit(blocks: number, commandLine: readonly string[]): [command: string, args: string[]] {
  return ['bash', ['-c', `trap '' XFSZ; ulimit -f ${blocks}; exec "$@"`, 'bash', ...commandLine]];
}

/** Runs a Node script that prints "listening on <url>" (a benchmark's bare server, say). */
export function spawnScript(script: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return listening(spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] }));
}

/** Resolves once the process says where it listens. What it logs after that is read, so that a
 * full pipe never stalls it: its errors are shown on this process's stderr (a failing test then
 * says what the server saw), the rest dropped. */
function listening(child: ChildProcess): Promise<ServerProcess> {
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 15_000);
    const look = (data: Buffer) => {
      output += data.toString();
      const address = LISTENING_LINE.exec(output);
      if (!address) return;
      clearTimeout(timer);
      child.stdout!.off('data', look);
      showErrors(child);
      resolve({ child, baseUrl: address[1]!, exited });
    };
    child.stdout!.on('data', look);
    child.on('exit', (code) => reject(new Error(`server exited with ${code} before listening: ${output}`)));
  });
}

/** Writes the child's log lines of level error and above on this process's stderr. */
function showErrors(child: ChildProcess): void {
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const level = /^\{"level":(\d+)/.exec(line)?.[1];
    if (level !== undefined && Number(level) >= pino.levels.values.error!) process.stderr.write(`server ${child.pid}: ${line}\n`);
  });
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The management CLI without blocking this process (load a test runs meanwhile goes on); its output. */
export async function runManageAsync(args: string[], env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [manageScript, ...args], { env: { ...process.env, ...env } });
  return stdout;
}

export function runManage(args: string[], env: Record<string, string>): CliResult {
  const result = spawnSync(process.execPath, [manageScript, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
