// A throwaway PostgreSQL cluster for a benchmark: initdb in a temporary directory, started on a
// loopback port with its socket in that directory, stopped and removed at the end. As root it runs
// as `nobody` (initdb refuses root). Null when PostgreSQL's binaries are not on this machine.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/cli/processes.js';

export interface Postgres {
  client: pg.Client;
  version: string;
  stop(): Promise<void>;
}

/** The directory holding initdb and pg_ctl: on the PATH, or Debian's versioned directory. */
function binaries(): string | null {
  const onPath = (process.env.PATH ?? '').split(':').find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
  if (onPath) return onPath;
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).sort().reverse() : [];
  return versions.map((version) => join(debian, version, 'bin')).find((dir) => existsSync(join(dir, 'initdb'))) ?? null;
}

const NOBODY = 65534;

/** Starts a cluster with `settings` (postgres -c name=value), or returns why it could not. */
export async function startPostgres(settings: Record<string, string>): Promise<Postgres | string> {
  const bin = binaries();
  if (!bin) return 'PostgreSQL is not installed (no initdb on the PATH or under /usr/lib/postgresql)';
  const dir = mkdtempSync(join(tmpdir(), 'parley-bench-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, NOBODY, NOBODY);
  const run = (command: string, args: string[]) =>
    asRoot ? execFileSync('runuser', ['-u', 'nobody', '--', join(bin, command), ...args], { stdio: 'pipe' }) : execFileSync(join(bin, command), args, { stdio: 'pipe' });
  const data = join(dir, 'data');
  const port = await freePort();
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']);
    const options = [`-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`)].join(' ');
    run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', 'start']);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return `PostgreSQL could not be started: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
  const halt = () => {
    run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    rmSync(dir, { recursive: true, force: true });
  };
  // An interrupted benchmark leaves no cluster running behind it.
  const interrupted = (signal: NodeJS.Signals) => {
    halt();
    process.kill(process.pid, signal);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await client.connect();
  const version = String((await client.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version);
  return {
    client,
    version,
    async stop() {
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
      await client.end();
      halt();
    },
  };
}
