// Starting the processes of a local cluster: nats-server (one, or three in a NATS cluster with
// JetStream replication) and Parley nodes, each on free loopback ports with its own data directory.
// Used by `npm run cluster`, the cluster tests and the cluster benchmarks.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export interface Proc {
  child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string | null>;
  /** The last lines the process wrote (for diagnosing a failure). */
  tail(): string;
}

/** How much of a process's output is kept for `tail`. */
const TAIL_BYTES = 8192;

/** A loopback port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Resolves with the first match of `pattern` in what the process writes, within `timeoutMs`. */
function waitForOutput(proc: Proc, pattern: RegExp, timeoutMs = 15_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in ${timeoutMs} ms: ${output.slice(-2000)}`)), timeoutMs);
    const look = (data: Buffer) => {
      output += data.toString();
      const match = pattern.exec(output);
      if (!match) return;
      clearTimeout(timer);
      proc.child.stdout?.off('data', look);
      proc.child.stderr?.off('data', look);
      resolve(match);
    };
    proc.child.stdout?.on('data', look);
    proc.child.stderr?.on('data', look);
    void proc.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${output.slice(-2000)}`));
    });
  });
}

/** Waits for the line that says a process is ready; a process that does not say it in time is
 * killed, so that no failed start leaves a process behind. */
async function readyOrKilled(proc: Proc, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  try {
    return await waitForOutput(proc, pattern, timeoutMs);
  } catch (error) {
    await stop(proc, 0);
    throw error;
  }
}

/** Starts a process; with `echo`, its output is also written here, each line behind the name. */
function start(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, echo?: string): Proc {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  // Read on (a full pipe would stall the process), keeping the end for `tail`.
  let kept = '';
  const keep = (data: Buffer) => {
    kept = (kept + data.toString()).slice(-TAIL_BYTES);
    if (echo) for (const line of data.toString().split('\n').filter((text) => text !== '')) process.stdout.write(`[${echo}] ${line}\n`);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return { child, exited, tail: () => kept };
}

export const NATS_INSTALL_HINT = 'nats-server is not installed: on Debian, `apt-get install -y nats-server`';

export function natsServerInstalled(): boolean {
  return spawnSync('nats-server', ['--version']).status === 0;
}

export interface NatsServer extends Proc {
  url: string;
  name: string;
}

/** Starts `count` nats-servers with JetStream on loopback (three form a cluster) under `dir`. */
export async function startNats(count: 1 | 3, dir: string): Promise<NatsServer[]> {
  if (!natsServerInstalled()) throw new Error(NATS_INSTALL_HINT);
  const clientPorts = await Promise.all(Array.from({ length: count }, freePort));
  const routePorts = await Promise.all(Array.from({ length: count }, freePort));
  const servers = clientPorts.map((port, index) => {
    const name = `nats-${index + 1}`;
    mkdirSync(join(dir, name), { recursive: true });
    const routes = routePorts.filter((_, other) => other !== index).map((route) => `nats-route://127.0.0.1:${route}`);
    const lines = [`server_name: ${name}`, `listen: 127.0.0.1:${port}`, `jetstream { store_dir: "${join(dir, name)}" }`];
    if (count > 1) lines.push(`cluster { name: parley, listen: 127.0.0.1:${routePorts[index]}, routes: [${routes.join(', ')}] }`);
    const configFile = join(dir, `${name}.conf`);
    writeFileSync(configFile, `${lines.join('\n')}\n`);
    return { ...start('nats-server', ['-c', configFile]), url: `nats://127.0.0.1:${port}`, name };
  });
  await Promise.all(servers.map((server) => readyOrKilled(server, /Server is ready/, 15_000))).catch(async (error: unknown) => {
    await Promise.all(servers.map((server) => stop(server, 0)));
    throw error;
  });
  return servers;
}

/** The line a Parley server writes once it listens, with its base URL. */
export const LISTENING_LINE = /listening on (http:\/\/[\d.]+:\d+)/;

export interface ParleyNode extends Proc {
  baseUrl: string;
  nodeId: string;
  dataDir: string;
}

const mainScript = new URL('../main.js', import.meta.url).pathname;

/** Starts a Parley node of the cluster whose NATS servers are `natsUrls`; resolves once it listens. */
export async function startNode(natsUrls: string[], nodeId: string, dataDir: string, env: Record<string, string> = {}, echo = false): Promise<ParleyNode> {
  const proc = start(
    process.execPath,
    [mainScript],
    {
    ...process.env,
    PARLEY_HOST: '127.0.0.1',
    PARLEY_PORT: '0',
    PARLEY_EXTERNAL_HOST: 'localhost:9991',
    PARLEY_DATA_DIR: dataDir,
    PARLEY_NATS_URL: natsUrls.join(','),
    PARLEY_NODE_ID: nodeId,
    ...env,
    },
    echo ? nodeId : undefined,
  );
  const [, baseUrl] = await readyOrKilled(proc, LISTENING_LINE, 120_000);
  return { ...proc, baseUrl: baseUrl!, nodeId, dataDir };
}

/** Stops a process (SIGTERM, then SIGKILL after `graceMs`). */
export async function stop(proc: Proc, graceMs = 10_000): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), graceMs);
  await proc.exited;
  clearTimeout(timer);
}
