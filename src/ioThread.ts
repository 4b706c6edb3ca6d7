// An I/O thread (PARLEY_THREADS above 2): a front besides the main thread's. It serves clients
// (HTTP, the event WebSocket, their event queues) as the main thread does, on the port it was
// given — the server's, shared — and reaches the realm thread and the other fronts over the ports
// it was given (threads/ioThreads.ts). It reads the same environment as the other threads, reports
// its measurements and gauges to the main thread, which serves the metrics, and stops when told.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { frontPeers, serveClients, type FrontShares } from './app.js';
import { loadConfig, type Config } from './config.js';
import { QueueCounts } from './events/queueCounts.js';
import { guardRejections, openFiles } from './setup.js';
import { GAUGES_INTERVAL_MS, gaugesOf, type FromIoThread, type IoThreadData, type ToIoThread } from './threads/ioThreads.js';
import { RelayedMetrics } from './threads/metricsRelay.js';
import { IO_THREAD_NAME } from './threads/protocol.js';
import { RealmFront } from './threads/realmsThread.js';
import { nameThisThread } from './threads/workers.js';

if (isMainThread || !parentPort) throw new Error('an I/O thread runs as a worker of the server');
const main = parentPort;
const post = (message: FromIoThread) => main.postMessage(message);
const data = workerData as IoThreadData<FrontShares>;
nameThisThread(`${IO_THREAD_NAME}${data.index}`);
const config: Config = { ...loadConfig(), port: data.port, metrics: new RelayedMetrics(post) };
guardRejections(config.log);
const front = new RealmFront(config, data.realms, data.index, data.count, new QueueCounts(data.shares.queues), data.shares.generation);
await front.start();
const peers = frontPeers(config, front, data.index, data.count, data.peers);
// Rendering stays on this thread: an I/O thread is already off the realm's.
const served = await serveClients(config, { directory: front, queues: front.queues, files: await openFiles(config), renders: null, peers, sharing: data.sharing, shares: data.shares });
const gauges = setInterval(() => post({ kind: 'gauges', gauges: gaugesOf(served.http, front.queues) }), GAUGES_INTERVAL_MS);
const steps: Record<ToIoThread['kind'], () => Promise<void>> = { stopListening: async () => served.http.stopListening(), stop, finish };
main.on('message', (message: ToIoThread) => {
  const step = steps[message.kind]();
  // A step that failed is told too: the server stops all the same, the failure logged.
  void step.then(
    () => post({ kind: 'done', step: message.kind }),
    (error: unknown) => post({ kind: 'done', step: message.kind, failure: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
post({ kind: 'serving' });

async function stop(): Promise<void> {
  clearInterval(gauges);
  await served.stop();
}

/** Once the realms stopped: every emission of their durable writes reached this front, and its
 * queues are kept across the restart. */
async function finish(): Promise<void> {
  await front.sync();
  await front.queues.persist();
  peers?.close();
}
