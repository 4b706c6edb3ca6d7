// A worker thread of a run: opens the event streams of the users it owns, starts its share of the
// schedule's slots at their intended times (never waiting for an answer before starting the next:
// the open model), tracks every delivery its users' streams see, and reports progress each second
// and its measurements at the end.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { Api, errorKey } from './api.js';
import { EventStream, type StreamEvent } from './eventStream.js';
import { Recorder } from './measurements.js';
import { OPERATIONS, TOKEN, seeded, type OperationContext } from './operations.js';
import { mixedSchedule } from './schedule.js';
import { operationRates, type Progress, type RunnerMessage, type WorkerMessage, type WorkerPlan } from './plan.js';

const plan = workerData as WorkerPlan;
const port = parentPort!;
const post = (message: WorkerMessage) => port.postMessage(message);
const now = (): number => performance.timeOrigin + performance.now();

const recorder = new Recorder();
const { cast, scenario } = plan;
const apis = cast.users.map((user, u) => new Api(plan.targets[u % plan.targets.length]!, user));
const owned = cast.users.map((_, u) => u).filter((u) => u % plan.count === plan.index);
const seen = new Map<number, Set<number>>(owned.map((u) => [u, new Set()]));
const lastMessage = new Map<number, number>();
const boundMs = scenario.delivery_timeout * 1000;
let startAt = 0;

function onEvent(user: number, event: StreamEvent): void {
  if (event.type !== 'message') return;
  const message = event.message as { id: number; content: string; type: string };
  if (message.type === 'stream') lastMessage.set(user, message.id);
  const match = TOKEN.exec(message.content);
  if (!match || match[1] !== plan.runId) return;
  const ids = seen.get(user)!;
  if (ids.has(message.id)) {
    recorder.delivery.duplicated++;
    return;
  }
  ids.add(message.id);
  const intended = Number(match[2]);
  const latency = now() - intended;
  if (latency > boundMs) recorder.delivery.late++;
  else {
    recorder.delivery.delivered++;
    recorder.delivered(Math.floor((intended - startAt) / 1000), latency);
  }
}

const streams = owned.map((u) => new EventStream(apis[u]!, (event) => onEvent(u, event), recorder.stream, plan.eventTypes, plan.transport));

const context: OperationContext = { cast, scenario, runId: plan.runId, api: (u) => apis[u]!, lastMessage: (u) => lastMessage.get(u), reactions: new Set() };
const slots = mixedSchedule(operationRates(plan), plan.phases, plan.maxOperations).filter((_, i) => i % plan.count === plan.index);
let next = 0;
let stopped = false;
let inFlight = 0;
let errors = 0;
let timer: NodeJS.Timeout | undefined;

function start(slotIndex: number): void {
  const slot = slots[slotIndex]!;
  const intended = startAt + slot.at;
  const second = Math.floor(slot.at / 1000);
  const draw = seeded(slotIndex * plan.count + plan.index + 1);
  const user = owned.length > 0 ? owned[Math.floor(draw() * owned.length)]! : Math.floor(draw() * cast.users.length);
  const started = OPERATIONS[slot.op]!(context, user, draw, intended, `${plan.index}-${slotIndex}`);
  if (!started) {
    recorder.skipped++;
    return;
  }
  inFlight++;
  const settle = (answer: unknown, ok: boolean) => {
    inFlight--;
    const latency = now() - intended;
    if (ok) {
      recorder.success(slot.op, second, latency);
      recorder.delivery.expected += started.deliveries;
    } else {
      errors++;
      recorder.failure(slot.op, second, latency, errorKey(answer));
    }
  };
  started.answer.then(
    (answer) => settle(answer, answer.status === 200),
    (error: unknown) => settle(error, false),
  );
}

/** Starts every slot that is due, then sleeps until the next one. */
function tick(): void {
  const elapsed = now() - startAt;
  while (!stopped && next < slots.length && slots[next]!.at <= elapsed) {
    recorder.lag.recordValue(Math.max(1, Math.round((elapsed - slots[next]!.at) * 1000)));
    start(next++);
  }
  if (!stopped && next < slots.length) timer = setTimeout(tick, Math.max(0, slots[next]!.at - (now() - startAt)));
}

const loop = monitorEventLoopDelay({ resolution: 10 });

function progress(): Progress {
  return { errors, inFlight, scheduleDone: stopped || next >= slots.length, ...recorder.delivery, interval: recorder.takeInterval() };
}

async function finish(): Promise<void> {
  clearInterval(ticker);
  loop.disable();
  recorder.loopDelayMaxMs = Math.round(loop.max / 1e4) / 100;
  await Promise.all(streams.map((stream) => stream.close()));
  for (const stream of streams) recorder.stream.transports[stream.transport] = (recorder.stream.transports[stream.transport] ?? 0) + 1;
  post({ type: 'result', measurements: recorder.snapshot() });
  port.close();
}

let ticker: NodeJS.Timeout | undefined;
port.on('message', (message: RunnerMessage) => {
  if (message.type === 'start') {
    startAt = message.startAt;
    loop.enable();
    ticker = setInterval(() => post({ type: 'progress', progress: progress() }), 1000);
    timer = setTimeout(tick, Math.max(0, startAt - now()));
  } else if (message.type === 'stop') {
    stopped = true;
    clearTimeout(timer);
    recorder.skipped += slots.length - next;
  } else void finish();
});

try {
  // Opening hundreds of streams at once would itself be a burst: a few at a time.
  for (let i = 0; i < streams.length; i += 16) await Promise.all(streams.slice(i, i + 16).map((stream) => stream.open()));
  post({ type: 'ready' });
} catch (error) {
  post({ type: 'failed', message: `opening event streams: ${(error as Error).message}` });
}
