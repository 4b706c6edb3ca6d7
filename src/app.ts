// Assembles a Parley server from a configuration: the store, the realms, the HTTP server. Used by
// the entry point and by tests, which start it on a free port with a temporary data directory.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { routes } from './api/routes.js';
import { Grants } from './auth/grants.js';
import { LoginLimiter } from './auth/loginLimiter.js';
import { every } from './clock.js';
import type { Config } from './config.js';
import type { Logger } from './ops/log.js';
import { RateLimiter } from './http/rateLimit.js';
import { serveMetrics } from './http/metrics.js';
import { startHttpServer, type HttpServer } from './http/server.js';
import { EventQueues, QUEUE_GC_INTERVAL_MS } from './events/queues.js';
import type { RealmLog } from './realm/log.js';
import { Realms } from './realm/registry.js';
import { ClusterNode } from './cluster/node.js';
import { seedDemoRealm } from './seed/demo.js';
import { Store, STORE_FORMAT } from './store/store.js';
import { LocalFileStorage } from './files/local.js';
import type { FileStorage } from './files/storage.js';
import { S3FileStorage } from './files/s3.js';
import { RenderPool } from './messages/renderPool.js';

export interface Parley {
  readonly config: Config;
  readonly realms: Realms;
  readonly queues: EventQueues;
  readonly http: HttpServer;
  /** The port GET /metrics is served on, when it is. */
  readonly metricsPort: number | null;
  /** Stops accepting requests, answers those in flight, makes every write durable, closes LMDB. */
  close(): Promise<void>;
}

/** The file that tells the management CLI a server has this data directory open. */
export const pidFile = (dataDir: string): string => join(dataDir, 'parley.pid');

export function openStore(config: Config): Store {
  mkdirSync(config.dataDir, { recursive: true });
  // Building the search index of an older data directory takes a while on a large one: told as it goes.
  return new Store(join(config.dataDir, 'parley.mdb'), { progress: (indexed, total) => config.log.info({ indexed, total }, 'indexing messages for search'), sync: config.storeSync });
}

/** How long a WebSocket token may wait to be used. */
const SOCKET_TOKEN_TTL_SECONDS = 30;
/** How long a video provider's OAuth flow may take. */
const CALL_AUTHORIZATION_TTL_SECONDS = 600;

/** Rejections nobody handled since the process started (a bug somewhere: logged and counted, and
 * the server goes on — one failed promise must not take every realm, queue and socket down). */
export const unhandled = { rejections: 0 };
let guarded = false;

/** Counts and logs (with the first server's log) the promise rejections nobody handled. */
function guardRejections(log: Logger): void {
  if (guarded) return;
  guarded = true;
  process.on('unhandledRejection', (reason) => {
    unhandled.rejections++;
    // lmdb-js also rejects a promise of its own for a batch whose commit failed; the write itself
    // was already answered with STORAGE_UNAVAILABLE and logged.
    if ((reason as { commitError?: unknown } | null)?.commitError !== undefined) return;
    log.error({ err: reason }, 'unhandled promise rejection (the server goes on)');
  });
}

/** What a server is built with besides its configuration. */
export interface ParleyParts {
  /** Where committed writes go besides LMDB (a cluster's log; tests look at what goes there). */
  realmLog?: RealmLog;
  /** Where uploads and exports are kept, instead of the configured storage (tests hold it). */
  files?: FileStorage;
}

export async function startParley(config: Config, parts: ParleyParts = {}): Promise<Parley> {
  guardRejections(config.log);
  const files = parts.files ?? (config.s3 ? await S3FileStorage.connect(config.s3) : new LocalFileStorage(config.dataDir));
  const store = openStore(config);
  if (store.migratedFrom !== null) config.log.info({ from: store.migratedFrom, to: STORE_FORMAT }, 'data directory migrated to the current format');
  const queues = new EventQueues(store, config.clock, config.metrics);
  await queues.restore();
  queues.announceRestart();
  const realms = new Realms(store, config, queues, parts.realmLog, config.cluster === null, files);
  // In a cluster the node finds realms and their owners; standalone, the store holds them all.
  const node = config.cluster ? await ClusterNode.start(config.cluster, config, store, queues, realms) : undefined;
  if (node) {
    if (config.mode === 'development') await node.seedOnce((creator) => seedDemoRealm(creator, config.passwordHashCost));
  } else {
    if (config.mode === 'development' && realms.isEmpty) await seedDemoRealm(realms, config.passwordHashCost);
    realms.activateScheduled();
  }
  // A cluster gateway has no realm state to render with: it renders where the realm lives.
  const renders = config.cluster === null && config.renderThreads > 0 ? new RenderPool(config.renderThreads, config.log) : null;
  const http = await startHttpServer({ config, realms: node ?? realms, queues, socketTokens: new Grants(SOCKET_TOKEN_TTL_SECONDS, config.clock), callAuthorizations: new Grants(CALL_AUTHORIZATION_TTL_SECONDS, config.clock), loginLimiter: new LoginLimiter(config.clock), rateLimiter: new RateLimiter(config.rateLimits, config.clock), files, renders }, routes);
  config.metrics.watch({
    openSockets: () => http.openSockets,
    eventQueues: () => queues.size,
    mailboxDepth: () => realms.waiting(),
    realmsLoaded: () => realms.loaded,
    storeBytes: () => store.fileBytes(),
    unhandledRejections: () => unhandled.rejections,
    realms: () => (node ? node.overview().realms : realms.overview()),
    nodes: () => (node ? node.overview().nodes : null),
    usersOnline: () => queues.usersOnline(),
  });
  const metricsServer = config.metricsListen && (await serveMetrics(config.metricsListen, config.metrics));
  const stopCollecting = every(config.clock, QUEUE_GC_INTERVAL_MS, () => queues.collectGarbage());
  writeFileSync(pidFile(config.dataDir), String(process.pid));
  return {
    config,
    realms,
    queues,
    http,
    metricsPort: metricsServer ? metricsServer.port : null,
    async close() {
      stopCollecting();
      metricsServer?.close();
      await http.close(() => queues.releaseConsumers());
      await renders?.close();
      await node?.drain();
      await realms.stop();
      await node?.close();
      await queues.persist();
      await store.close();
      rmSync(pidFile(config.dataDir), { force: true });
    },
  };
}
