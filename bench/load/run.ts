// A run from start to report: set up the cast, drive the workers (here, or on agents) at one rate,
// or — the saturation search — at rising rates until an objective breaks.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { drive } from './drive.js';
import type { RunOptions } from './options.js';
import type { WorkerPlan } from './plan.js';
import { RemoteRunner } from './remote.js';
import { buildReport, writeReport, type LoadReport } from './report.js';
import { LocalRunner, workerPlans, type Runner } from './runner.js';
import type { Phases } from './schedule.js';
import { cleanUp, setUp, type Cast } from './setup.js';
import { broken } from './slo.js';

const phasesOf = (options: RunOptions): Phases => ({ rampUpS: options.scenario.ramp_up, steadyS: options.steadyS, rampDownS: options.scenario.ramp_down });

/** One run at `rate`: its report, written to `dir`. */
async function runAt(options: RunOptions, cast: Cast, rate: number, dir: string, live: boolean): Promise<LoadReport> {
  const phases = phasesOf(options);
  const base: Omit<WorkerPlan, 'index' | 'count'> = { runId: randomBytes(5).toString('hex'), targets: options.targets, cast, scenario: options.scenario, rate, phases, maxOperations: options.maxOperations, eventTypes: options.eventTypes, transport: options.transport };
  const total = options.agents.length === 0 ? options.workers : options.agents.length * options.workers;
  const runners: Runner[] =
    options.agents.length === 0
      ? [new LocalRunner(workerPlans(base, 0, options.workers, total))]
      : options.agents.map((agent, a) => new RemoteRunner(agent, workerPlans(base, a * options.workers, options.workers, total)));
  const boundMs = options.scenario.delivery_timeout * 1000;
  const maxSeconds = phases.rampUpS + phases.steadyS + phases.rampDownS + options.scenario.delivery_timeout + 60;
  let driven;
  try {
    driven = await drive(runners, { requestedRate: rate, boundMs, maxSeconds, live, workers: total });
  } catch (error) {
    for (const runner of runners) runner.abort();
    throw error;
  }
  const report = buildReport(driven, { targets: options.targets, server: cast.server, users: cast.users.length, workers: total, phases, rate, boundMs });
  writeReport(dir, report);
  return report;
}

function summaryLine(report: LoadReport): string {
  const send = report.operations.send!;
  const d = report.delivery;
  return `rate ${report.rate.requested}/s requested, ${report.rate.achieved}/s achieved · send p50 ${send.p50_ms} p99 ${send.p99_ms} max ${send.max_ms} ms, ${send.errors} errors · delivery p50 ${d.p50_ms} p99 ${d.p99_ms} max ${d.max_ms} ms, lost ${d.lost}, duplicated ${d.duplicated}`;
}

/** Whether a report meets the objectives: within them, nothing lost, and the rate achieved. */
function verdict(options: RunOptions, report: LoadReport): { held: boolean; broken: string[] } {
  const summaries = { ...report.operations, delivery: report.delivery };
  const reasons = broken(options.findMax!.objectives, summaries).map((b) => `${b.objective} (measured ${b.measuredMs ?? 'nothing'})`);
  if (report.delivery.lost > 0) reasons.push(`${report.delivery.lost} deliveries lost`);
  if (report.rate.achieved < 0.9 * report.rate.requested) reasons.push(`achieved ${report.rate.achieved}/s of ${report.rate.requested}/s`);
  return { held: reasons.length === 0, broken: reasons };
}

async function findMax(options: RunOptions, cast: Cast): Promise<LoadReport> {
  const steps: { rate: number; achieved: number; held: boolean; broken: string[]; send_p99_ms: number; delivery_p99_ms: number }[] = [];
  let best: LoadReport | undefined;
  let last: LoadReport | undefined;
  let broke = false;
  for (let rate = options.rate; rate <= options.findMax!.maxRate; rate = Math.round(rate * options.findMax!.step * 100) / 100) {
    console.log(`find-max: step at ${rate} sends/s`);
    last = await runAt(options, cast, rate, join(options.out, 'steps', `rate-${rate}`), true);
    const outcome = verdict(options, last);
    steps.push({ rate, achieved: last.rate.achieved, ...outcome, send_p99_ms: last.operations.send!.p99_ms, delivery_p99_ms: last.delivery.p99_ms });
    console.log(`  ${summaryLine(last)} → ${outcome.held ? 'held' : `broke: ${outcome.broken.join('; ')}`}`);
    if (!outcome.held || last.interrupted) {
      broke = true;
      break;
    }
    best = last;
  }
  const report = { ...(best ?? last!), find_max: { slo: options.findMax!.objectives.map((o) => o.text), max_rate_held: best?.rate.requested ?? null, objective_broken: broke, steps } };
  writeReport(options.out, report);
  if (!best) console.log('find-max: no rate held (the first step broke the objective)');
  else console.log(`find-max: the highest rate that held is ${best.rate.requested} sends/s${broke ? '' : ' (the search stopped at --max-rate before the objective broke)'}`);
  return report;
}

export async function runLoad(options: RunOptions): Promise<LoadReport> {
  console.log(`setting up ${options.users} users and ${options.scenario.channels} channels (prefix '${options.prefix}') on ${options.targets[0]}`);
  const setup = { target: options.targets[0]!, admin: options.admin, prefix: options.prefix, users: options.users, scenario: options.scenario };
  const cast = await setUp(setup);
  console.log(`server: Zulip API ${cast.server.zulip_version}, feature level ${cast.server.zulip_feature_level}; ${options.agents.length > 0 ? `${options.agents.length} agents × ` : ''}${options.workers} workers`);
  try {
    const report = options.findMax ? await findMax(options, cast) : await runAt(options, cast, options.rate, options.out, true);
    if (!options.findMax) console.log(summaryLine(report));
    for (const warning of report.tool_health.warnings) console.log(`warning: ${warning}`);
    console.log(`report: ${join(options.out, 'report.json')}, ${join(options.out, 'report.html')}`);
    return report;
  } finally {
    if (options.cleanup) {
      await cleanUp(setup, cast);
      console.log(`cleanup: deactivated ${cast.users.length} users, archived ${cast.channels.length} channels`);
    }
  }
}
