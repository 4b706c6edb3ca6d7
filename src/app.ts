// Assembles a Parley server from a configuration: the store, the realms, the HTTP server. Used by
// the entry point and by tests, which start it on a free port with a temporary data directory.
import { routes } from './api/routes.js';
import { Grants, newGrantsShare, type GrantsShare } from './auth/grants.js';
import { LoginLimiter, loginLimitShare, type LoginLimitShare } from './auth/loginLimiter.js';
import { every, nowSeconds, type Clock } from './clock.js';
import type { Config } from './config.js';
import type { RealmSources } from './ops/metrics.js';
import { RateLimiter, rateLimitShare, type RateLimitShare } from './http/rateLimit.js';
import { serveMetrics } from './http/metrics.js';
import { newBodyBudget } from './http/body.js';
import { startHttpServer, type HttpServer, type PortSharing } from './http/server.js';
import { EventQueues, QUEUE_GC_INTERVAL_MS } from './events/queues.js';
import { newQueueCountsShare, QueueCounts } from './events/queueCounts.js';
import type { RealmLog } from './realm/log.js';
import { Realms } from './realm/registry.js';
import { keptJson } from './organization/keptJson.js';
import { ClusterNode } from './cluster/node.js';
import { seedDemoRealm } from './seed/demo.js';
import type { FileStorage } from './files/storage.js';
import type { RealmDirectory } from './realm/handle.js';
import { claimDataDir } from './claims.js';
import { guardRejections, openFiles, openStore, shardCount } from './setup.js';
import { RealmThreads, type RealmFront } from './threads/realmsThread.js';
import { clientSources, gaugesOf, IoThread, type FrontGauges } from './threads/ioThreads.js';
import { claimPort } from './threads/claimPort.js';
import { FrontPeers, peerPorts } from './threads/peers.js';
import type { MessagePort } from 'node:worker_threads';
import { answerQueueRequest } from './api/events.js';
import { RenderPool } from './messages/renderPool.js';

/** A running server, whichever threads run what. */
export interface ParleyServer {
  readonly config: Config;
  readonly queues: EventQueues;
  readonly http: HttpServer;
  /** The port GET /metrics is served on, when it is. */
  readonly metricsPort: number | null;
  /** Stops accepting requests, answers those in flight, makes every write durable, closes LMDB. */
  close(): Promise<void>;
}

/** A server whose realms run on the thread that serves clients (tests reach its realms). */
export interface Parley extends ParleyServer {
  readonly realms: Realms;
}

/** How long a WebSocket token may wait to be used. */
const SOCKET_TOKEN_TTL_SECONDS = 30;
/** How long a video provider's OAuth flow may take. */
const CALL_AUTHORIZATION_TTL_SECONDS = 600;

/** What a server is built with besides its configuration. */
export interface ParleyParts {
  /** Where committed writes go besides LMDB (a cluster's log; tests look at what goes there). */
  realmLog?: RealmLog;
  /** Where uploads and exports are kept, instead of the configured storage (tests hold it). */
  files?: FileStorage;
}

/** What every front of a process shares with the others, as plain data a worker is started with:
 * the state of its limits, so that the fronts grant each token once and limit as one. */
export interface FrontShares {
  socketTokens: GrantsShare;
  callAuthorizations: GrantsShare;
  logins: LoginLimitShare;
  rates: RateLimitShare;
  bodies: SharedArrayBuffer;
  /** How many event queues each user holds. */
  queues: SharedArrayBuffer;
  /** Zulip's server_generation (seconds): when the server started, the same on every front, or a
   * client registering through another thread would take the server for a restarted one. */
  generation: number;
}

/** New shares, for a process's first front. */
export const newFrontShares = (clock: Clock): FrontShares => ({ socketTokens: newGrantsShare(), callAuthorizations: newGrantsShare(), logins: loginLimitShare(), rates: rateLimitShare(), bodies: newBodyBudget(), queues: newQueueCountsShare(), generation: nowSeconds(clock) });

/** What a front serves its clients with. */
export interface FrontParts {
  directory: RealmDirectory;
  queues: EventQueues;
  files: FileStorage;
  /** Render workers (null: renders where the directory's realms say). */
  renders: RenderPool | null;
  /** The other fronts, when there are. */
  peers: FrontPeers | null;
  sharing: PortSharing;
  shares: FrontShares;
}

/** What serves clients, wherever the realms run: HTTP and the event WebSocket, and the queues'
 * garbage collection. `stop` closes them, the queues' consumers let go. */
export async function serveClients(config: Config, { directory, queues, files, renders, peers, sharing, shares }: FrontParts): Promise<{ http: HttpServer; stop(): Promise<void> }> {
  const limits = {
    socketTokens: new Grants(SOCKET_TOKEN_TTL_SECONDS, config.clock, shares.socketTokens),
    callAuthorizations: new Grants(CALL_AUTHORIZATION_TTL_SECONDS, config.clock, shares.callAuthorizations),
    loginLimiter: new LoginLimiter(config.clock, shares.logins),
    rateLimiter: new RateLimiter(config.rateLimits, config.clock, shares.rates),
  };
  const http = await startHttpServer({ config, realms: directory, queues, ...limits, bodyBudget: shares.bodies, files, renders, peers }, routes, sharing);
  const stopCollecting = every(config.clock, QUEUE_GC_INTERVAL_MS, () => queues.collectGarbage());
  return {
    http,
    async stop() {
      stopCollecting();
      await http.close(() => queues.releaseConsumers());
      await renders?.close();
    },
  };
}

/** A front's way to the other fronts (the queues they hold), when there are others. */
export function frontPeers(config: Config, front: RealmFront, index: number, count: number, ports: ReadonlyMap<number, MessagePort>): FrontPeers | null {
  return count > 1 ? new FrontPeers(index, count, ports, (request, signal) => answerQueueRequest({ queues: front.queues, config }, request, signal), front.queues, config.log) : null;
}

/** What a process has once, whatever serves its clients: the metrics (of the realms, of the
 * clients every front serves, of the realm thread's unhandled rejections when it has one) and
 * their server. */
async function watchProcess(config: Config, realmSources: RealmSources, fronts: () => FrontGauges[], realmThreadRejections = () => 0): Promise<{ metricsPort: number | null; stop(): void }> {
  config.metrics.watch({ ...realmSources, ...clientSources(fronts, realmThreadRejections) });
  const metricsServer = config.metricsListen && (await serveMetrics(config.metricsListen, config.metrics));
  return { metricsPort: metricsServer ? metricsServer.port : null, stop: () => metricsServer?.close() };
}

const renderPool = (config: Config): RenderPool | null => (config.renderThreads > 0 ? new RenderPool(config.renderThreads, config.log) : null);

/** The server `npm start` runs: standalone with PARLEY_THREADS above 1, the realms on a thread of
 * their own; otherwise every realm on the thread that serves clients. */
export async function startServer(config: Config): Promise<ParleyServer> {
  const threaded = config.threads > 1 && config.cluster === null;
  // Realm threads are a threaded standalone server's: elsewhere the setting would do nothing.
  if (config.realmThreads > 1 && !threaded) throw new Error('PARLEY_REALM_THREADS above 1 needs PARLEY_THREADS of 2 or more, on a standalone server');
  const release = claimDataDir(config.dataDir);
  try {
    const server = await (threaded ? startThreaded(config) : startParley(config));
    return {
      ...server,
      async close() {
        try {
          await server.close();
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

/** The realms on a thread of their own (PARLEY_THREADS above 1), served by fronts: this thread,
 * and as many I/O threads as PARLEY_THREADS leaves (threads/ioThreads.ts), all on the configured
 * port, or each on one of `ownPorts` (the tests of fronts, which pick the front they talk to). */
export async function startThreaded(config: Config, ownPorts: readonly number[] = []): Promise<ParleyServer> {
  guardRejections(config.log);
  const count = Math.max(1, config.threads - 1);
  if (ownPorts.length > 0 && ownPorts.length !== count - 1) throw new Error(`${count - 1} I/O threads, ${ownPorts.length} ports of their own`);
  const sharing: PortSharing = count > 1 && ownPorts.length === 0 ? 'shared' : 'exclusive';
  const claimed = sharing === 'shared' ? await claimPort(config.host, config.port) : undefined;
  const port = claimed?.port ?? config.port;
  const shares = newFrontShares(config.clock);
  // Every shard on disk is served, however few realm threads were asked for.
  const realms = new RealmThreads(config, count, new QueueCounts(shares.queues), shares.generation, shardCount(config));
  const peers = peerPorts(count);
  const starting = realms.otherFronts.map((realm, at) => IoThread.start(config, { index: at + 1, count, realms: realm, peers: peers[at + 1]!, port: ownPorts[at] ?? port, sharing, shares }));
  const [ioThreads] = await Promise.all([Promise.all(starting), realms.main.start()]);
  const main = realms.main;
  const mainPeers = frontPeers(config, main, 0, count, peers[0]!);
  const served = await serveClients({ ...config, port }, { directory: main, queues: main.queues, files: await openFiles(config), renders: renderPool(config), peers: mainPeers, sharing, shares });
  const watched = await watchProcess(config, main.metricSources(), () => [gaugesOf(served.http, main.queues), ...ioThreads.map((thread) => thread.gauges)], () => main.realmThreadRejections);
  return {
    config,
    queues: main.queues,
    http: served.http,
    metricsPort: watched.metricsPort,
    async close() {
      watched.stop();
      // A front that fails to stop is logged, and the server stops all the same: every write
      // answered is durable already, and its queues' clients register again.
      const logFailures = (steps: PromiseSettledResult<void>[]) => {
        for (const step of steps) if (step.status === 'rejected') config.log.error({ err: step.reason }, 'a thread serving clients failed to stop');
      };
      // Every thread stops accepting connections before any closes those it has (HttpServer).
      served.http.stopListening();
      logFailures(await Promise.allSettled(ioThreads.map((thread) => thread.stopListening())));
      logFailures(await Promise.allSettled([served.stop(), ...ioThreads.map((thread) => thread.stop())]));
      await main.stop();
      // Each I/O thread has every emission of the writes made durable before it saves its queues.
      logFailures(await Promise.allSettled(ioThreads.map((thread) => thread.finish())));
      await main.queues.persist();
      mainPeers?.close();
      await realms.close();
      claimed?.release();
    },
  };
}

export async function startParley(config: Config, parts: ParleyParts = {}): Promise<Parley> {
  guardRejections(config.log);
  const files = parts.files ?? (await openFiles(config));
  const store = openStore(config);
  const shares = newFrontShares(config.clock);
  const queues = new EventQueues(store, config.clock, config.metrics, 0, new QueueCounts(shares.queues), shares.generation);
  // A cluster node's queues do not outlive it: the batches other nodes sent meanwhile are lost.
  if (!config.cluster) await queues.restore();
  queues.announceRestart();
  const realms = new Realms(store, config, queues, { log: parts.realmLog, activateOnUse: config.cluster === null, files });
  // In a cluster the node finds realms and their owners; standalone, the store holds them all.
  const node = config.cluster ? await ClusterNode.start(config.cluster, config, store, queues, realms) : undefined;
  if (node) {
    if (config.mode === 'development') await node.seedOnce((creator) => seedDemoRealm(creator, config.passwordHashCost));
  } else {
    if (config.mode === 'development' && realms.isEmpty) await seedDemoRealm(realms, config.passwordHashCost);
    realms.activateScheduled();
  }
  const front = await serveClients(config, {
    directory: node ?? realms,
    queues,
    files,
    // A cluster gateway has no realm state to render with: it renders where the realm lives.
    renders: node ? null : renderPool(config),
    peers: null,
    sharing: 'exclusive',
    shares,
  });
  const watched = await watchProcess(
    config,
    {
      mailboxDepth: () => realms.waiting(),
      realmsLoaded: () => realms.loaded,
      storeBytes: () => store.fileBytes(),
      keptJsonBytes: () => keptJson.bytes,
      realms: () => (node ? node.overview().realms : realms.overview()),
      nodes: () => (node ? node.overview().nodes : null),
    },
    () => [gaugesOf(front.http, queues)],
  );
  return {
    config,
    realms,
    queues,
    http: front.http,
    metricsPort: watched.metricsPort,
    async close() {
      watched.stop();
      await front.stop();
      await node?.drain();
      await realms.stop();
      await node?.close();
      if (!config.cluster) await queues.persist();
      await store.close();
    },
  };
}
