// The command line: subcommands, options and their checks. A run needs its target named
// explicitly; every run is bounded in time and count.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import type { Account } from './api.js';
import type { TransportChoice } from './eventStream.js';
import { DEFAULT_SCENARIO, loadScenario, type Scenario } from './scenario.js';
import { parseSlo, type Objective } from './slo.js';

export const USAGE = `usage:
  npm run load -- --target URL (--admin EMAIL --admin-key KEY | --zuliprc FILE) [options]
  npm run load -- compare DIR_A DIR_B [--out DIR]
  npm run load -- agent [--listen HOST:PORT]
  npm run load -- coordinate --agents HOST:PORT,... --target URL ... [run options]

run options:
  --target URL        server to load (repeat for a cluster: users are spread over them); required
  --users N           users, each with an event stream (10)
  --rate R            sends per second at full rate, all users together (10)
  --duration S        steady phase in seconds (10); ramp-up and ramp-down from the scenario
  --ramp-up S, --ramp-down S
  --scenario FILE     JSON or YAML: channels, topics, dm_share, mixed-in operations (docs/load-testing.md)
  --out DIR           where report.json and report.html go (load-report)
  --workers N         worker threads here, or per agent with coordinate (cores available)
  --prefix NAME       name prefix of the users and channels it creates or reuses (load)
  --cleanup           deactivate the users and archive the channels afterwards
  --delivery-timeout S  a delivery later than this counts as lost (scenario, 10)
  --event-stream auto|websocket|long-poll
                      how users read events (auto: the WebSocket stream where offered)
  --max-operations N  bound on operations in the run (1000000)
  --find-max --slo "send.p99<100ms,delivery.p99<250ms" [--step 1.5] [--max-rate R]
                      raise the rate step by step until the objective breaks`;

export interface RunOptions {
  targets: string[];
  admin: Account;
  users: number;
  rate: number;
  scenario: Scenario;
  steadyS: number;
  out: string;
  workers: number;
  prefix: string;
  cleanup: boolean;
  maxOperations: number;
  findMax: { objectives: Objective[]; step: number; maxRate: number } | undefined;
  agents: string[];
  eventTypes: string[];
  transport: TransportChoice;
}

export class UsageError extends Error {}

const OPTIONS = {
  target: { type: 'string', multiple: true },
  admin: { type: 'string' },
  'admin-key': { type: 'string' },
  zuliprc: { type: 'string' },
  users: { type: 'string' },
  rate: { type: 'string' },
  duration: { type: 'string' },
  'ramp-up': { type: 'string' },
  'ramp-down': { type: 'string' },
  scenario: { type: 'string' },
  out: { type: 'string' },
  workers: { type: 'string' },
  prefix: { type: 'string' },
  cleanup: { type: 'boolean' },
  'delivery-timeout': { type: 'string' },
  'max-operations': { type: 'string' },
  'find-max': { type: 'boolean' },
  slo: { type: 'string' },
  step: { type: 'string' },
  'max-rate': { type: 'string' },
  agents: { type: 'string' },
  listen: { type: 'string' },
  'event-stream': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseCommandLine(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

type Values = ReturnType<typeof parseCommandLine>['values'];

/** A number option within bounds, or its default. */
function numberOption(values: Values, name: keyof Values, fallback: number, min: number, max: number): number {
  const text = values[name];
  if (text === undefined) return fallback;
  const value = Number(text);
  if (typeof text !== 'string' || !Number.isFinite(value) || value < min || value > max) throw new UsageError(`--${name} must be a number from ${min} to ${max} (got '${String(text)}')`);
  return value;
}

/** A zuliprc's [api] section: email, key (and site, which is not taken as a target). */
function readZuliprc(path: string): Account {
  const fields = new Map<string, string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^\s*([a-z_]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (match) fields.set(match[1]!, match[2]!);
  }
  const email = fields.get('email');
  const apiKey = fields.get('key');
  if (!email || !apiKey) throw new UsageError(`--zuliprc ${path}: needs 'email' and 'key' in its [api] section`);
  return { email, apiKey };
}

export function runOptions(values: Values): RunOptions {
  const targets = (values.target ?? []).map((target) => target.replace(/\/+$/, ''));
  if (targets.length === 0) throw new UsageError('--target URL is required: the tool loads only a server it is explicitly given');
  for (const target of targets) if (!/^https?:\/\/[^/]+/.test(target)) throw new UsageError(`--target ${target}: expected an http:// or https:// URL`);
  let admin: Account;
  if (values.zuliprc !== undefined) admin = readZuliprc(values.zuliprc);
  else if (values.admin && values['admin-key']) admin = { email: values.admin, apiKey: values['admin-key'] };
  else throw new UsageError('an administrator is required: --admin EMAIL --admin-key KEY, or --zuliprc FILE');
  const base = values.scenario === undefined ? DEFAULT_SCENARIO : loadScenario(values.scenario);
  const scenario: Scenario = {
    ...base,
    ramp_up: numberOption(values, 'ramp-up', base.ramp_up, 0, 3600),
    ramp_down: numberOption(values, 'ramp-down', base.ramp_down, 0, 3600),
    delivery_timeout: numberOption(values, 'delivery-timeout', base.delivery_timeout, 0.1, 600),
  };
  const transport = values['event-stream'] ?? 'auto';
  if (!['auto', 'websocket', 'long-poll'].includes(transport)) throw new UsageError(`--event-stream must be auto, websocket or long-poll (got '${transport}')`);
  if (values.prefix !== undefined && !/^[a-z][a-z0-9-]{0,30}$/.test(values.prefix)) throw new UsageError('--prefix: lower-case letters, digits and dashes, starting with a letter');
  const users = numberOption(values, 'users', 10, 1, 10_000);
  const agents = (values.agents ?? '').split(',').filter((agent) => agent !== '');
  const findMax = values['find-max']
    ? { objectives: parseSlo(values.slo ?? 'send.p99<100ms,delivery.p99<250ms'), step: numberOption(values, 'step', 1.5, 1.01, 10), maxRate: numberOption(values, 'max-rate', 10_000, 0.1, 100_000) }
    : undefined;
  return {
    targets,
    admin,
    users,
    rate: numberOption(values, 'rate', 10, 0.01, 100_000),
    scenario,
    steadyS: numberOption(values, 'duration', 10, 0, 3600),
    out: values.out ?? 'load-report',
    workers: Math.max(1, Math.min(users, Math.round(numberOption(values, 'workers', availableParallelism(), 1, 256)))),
    prefix: values.prefix ?? 'load',
    cleanup: values.cleanup ?? false,
    maxOperations: numberOption(values, 'max-operations', 1_000_000, 1, 100_000_000),
    findMax,
    agents,
    eventTypes: ['message'],
    transport: transport as TransportChoice,
  };
}
