// Server settings, read once from environment variables; every setting has a documented default
// (docs/configuration.md).
import { availableParallelism } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { systemClock, type Clock } from './clock.js';
import { createLogger, LOG_LEVELS, type LogFormat, type Logger } from './ops/log.js';
import { Metrics } from './ops/metrics.js';

export type Mode = 'development' | 'production';

/** A realm's JWT login key (Zulip's JWT_AUTH_KEYS): an HS256 secret, or an RS256/ES256 public key (PEM). */
export interface JwtKey {
  key: string;
  algorithms: ('HS256' | 'RS256' | 'ES256')[];
}

/** The push relay ("bouncer") that forwards notifications to FCM/APNs (Zulip's PUSH_NOTIFICATION_BOUNCER_URL). */
/** Where e-mail goes out (missed messages, invitations). */
export interface MailSettings {
  /** nodemailer's SMTP URL: smtp://user:pass@host:587 (smtps:// for TLS from the start). */
  url: string;
  /** The From address of every e-mail, as given. */
  from: string;
}

export interface PushRelay {
  url: string;
  /** `<server uuid>:<api key>`, sent as HTTP Basic credentials. */
  credentials: string;
  /** A request unanswered this long counts as a network error. */
  timeoutMs: number;
}

/** Where POST /calls/provider/create gets meetings: a Jitsi-style server (a room per call, no
 * authorization) or an OAuth 2 provider (Zoom-style: each user authorizes once). */
export type VideoProvider =
  | { kind: 'jitsi'; serverUrl: string }
  | { kind: 'oauth'; authorizeUrl: string; tokenUrl: string; createMeetingUrl: string; clientId: string; clientSecret: string };

export interface RateRule {
  limit: number;
  windowSeconds: number;
}

export interface RateLimitSettings {
  enabled: boolean;
  /** Per authenticated user (bots included). */
  user: RateRule;
  /** Per client address, for requests without credentials and for failed authentication. */
  address: RateRule;
  /** Per-user rules of particular realms, by subdomain ('' is the root realm). */
  realms: Record<string, RateRule>;
}

/** Cluster mode (PARLEY_NATS_URL set): the node's name and how it reaches NATS JetStream. */
export interface ClusterSettings {
  /** NATS servers, e.g. nats://10.0.0.1:4222. */
  servers: string[];
  /** This node's name, unique in the cluster (default host:port). */
  nodeId: string;
  /** How many NATS servers keep each log and lease (1, or 3 in a three-server NATS cluster). */
  replicas: number;
  /** A realm whose lease was not renewed for this long is taken over by another node. */
  leaseMs: number;
  /** Realm subdomains this node always takes (when their lease is free). */
  pinned: string[];
  /** A realm's owner snapshots it (and trims the log) after at least this many log messages... */
  snapshotEvery: number;
  /** ...once its log has grown since the last snapshot by this percentage of that snapshot's size. */
  snapshotGrowth: number;
}

/** Uploads in an S3-compatible bucket (PARLEY_S3_BUCKET set) instead of the data directory: what a
 * cluster needs, so every node serves every file. */
export interface S3Settings {
  /** The service's URL, e.g. https://s3.eu-west-1.amazonaws.com or http://10.0.0.5:9000. */
  endpoint: string;
  region: string;
  bucket: string;
  accessKey: string;
  secretKey: string;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  externalHost: string;
  mode: Mode;
  maxBodyBytes: number;
  /** The most bytes of request bodies held at once across all requests (beyond it: 503). */
  maxBufferedBodyBytes: number;
  /** Enables is_web_public channels server-wide (Zulip's WEB_PUBLIC_STREAMS_ENABLED). */
  webPublicStreamsEnabled: boolean;
  /** A parked long-poll is answered with a heartbeat after this long (below the 90 s clients wait). */
  heartbeatSeconds: number;
  /** How long an event queue lives without a client attached, unless register asks for longer. */
  queueLifespanSeconds: number;
  /** An event socket whose unsent data passes this is closed (4008); the client resumes. */
  socketMaxBackpressureBytes: number;
  /** How long one delete-topic request may delete batches before answering complete: false. */
  deleteTopicBudgetMs: number;
  /** JWT login keys by realm subdomain ('' is the root realm); a realm without one has no JWT login. */
  jwtKeys: Record<string, JwtKey>;
  /** Each commit is flushed to disk (fsync) before it is acknowledged; false only outside
   * production (the tests: a crashed process still loses nothing, a crashed machine may). */
  storeSync: boolean;
  /** scrypt's cost for new password hashes, as log2 of its N; a hash records its own, so a
   * changed cost still verifies older ones. Below the default only outside production (the tests). */
  passwordHashCost: number;
  /** A stopping server closes its connections once no request has arrived for this long. */
  shutdownQuietMs: number;
  /** The server's clock (the system's; tests start servers with a clock of their own). */
  clock: Clock;
  /** Unset: the server offers no mobile push. */
  pushRelay: PushRelay | null;
  /** Unset: the server sends no e-mail (missed-message e-mails, invitations). */
  mail: MailSettings | null;
  /** Unset: the server offers no video calls. */
  videoProvider: VideoProvider | null;
  /** The BigBlueButton server of GET /calls/bigbluebutton/create (Zulip's BIG_BLUE_BUTTON_URL and
   * _SECRET); unset: none. */
  bigBlueButton: { url: string; secret: string } | null;
  /** Threads of a standalone server (PARLEY_THREADS): above 1, the realms run on a thread of their
   * own, apart from the one that serves clients (docs/ARCHITECTURE.md, "Threads"). */
  threads: number;
  /** Realm threads of a standalone server with `threads` above 1 (PARLEY_REALM_THREADS), each with
   * a shard of the data directory; a server opens every shard on disk, so there may be more. */
  realmThreads: number;
  /** Worker threads that render messages off the realm's thread (standalone servers; 0: none). */
  renderThreads: number;
  /** MiB of heap the JSON kept of realms' states may take in all (PARLEY_KEPT_JSON_MB;
   * organization/keptJson.ts). */
  keptJsonMb: number;
  /** Outgoing-webhook bots' requests: the addresses (IPs or CIDRs) allowed besides the public
   * internet (loopback, private, link-local and metadata addresses are refused otherwise), and how
   * long a bot's server has to answer. */
  outgoingWebhooks: { allow: string[]; timeoutMs: number };
  rateLimits: RateLimitSettings;
  /** The largest file one upload may have, in MiB (Zulip's MAX_FILE_UPLOAD_SIZE). */
  maxFileUploadSizeMib: number;
  /** The most bytes of uploads each organization may hold, in MiB; null: no quota. */
  uploadQuotaMib: number | null;
  /** Null: uploads live in the data directory. */
  s3: S3Settings | null;
  /** Null: a standalone server (one process, no NATS). */
  cluster: ClusterSettings | null;
  /** The server's log (PARLEY_LOG_LEVEL, PARLEY_LOG_FORMAT). */
  log: Logger;
  /** The server's measurements (tests read them; `metricsListen` serves them). */
  metrics: Metrics;
  /** Where Prometheus scrapes GET /metrics: an address of its own, never the API's port; null: not served. */
  metricsListen: { host: string; port: number } | null;
}

function mailSetting(env: NodeJS.ProcessEnv): MailSettings | null {
  const url = env.PARLEY_SMTP_URL;
  if (!url) return null;
  if (!/^smtps?:\/\//.test(url)) throw new Error(`PARLEY_SMTP_URL must be an smtp:// or smtps:// URL, got '${url.replace(/\/\/[^@/]*@/, '//…@')}'`);
  const from = env.PARLEY_EMAIL_FROM;
  if (!from) throw new Error('PARLEY_EMAIL_FROM is required with PARLEY_SMTP_URL');
  return { url, from };
}

function intSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, least = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < least) throw new Error(`${name} must be ${least === 0 ? 'a non-negative integer' : `an integer of at least ${least}`}, got '${raw}'`);
  return value;
}

function boolSetting(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new Error(`${name} must be true or false, got '${raw}'`);
}

/** scrypt's N of 2^14, the cost every hash had before PARLEY_PASSWORD_HASH_COST. */
export const DEFAULT_PASSWORD_HASH_COST = 14;

function passwordHashCostSetting(env: NodeJS.ProcessEnv): number {
  const cost = intSetting(env, 'PARLEY_PASSWORD_HASH_COST', DEFAULT_PASSWORD_HASH_COST);
  if (cost < 4 || cost > 17) throw new Error(`PARLEY_PASSWORD_HASH_COST must be between 4 and 17, got '${cost}'`);
  return cost;
}

/** What a production server refuses: the settings that trade durability or security for speed. */
function checkProduction(config: Config): void {
  if (config.mode !== 'production') return;
  if (!config.storeSync) throw new Error('PARLEY_STORE_SYNC=false is refused in production mode');
  if (config.passwordHashCost < DEFAULT_PASSWORD_HASH_COST) throw new Error(`PARLEY_PASSWORD_HASH_COST below ${DEFAULT_PASSWORD_HASH_COST} is refused in production mode`);
}

function jwtKeysSetting(raw: string | undefined): Record<string, JwtKey> {
  if (raw === undefined || raw === '') return {};
  const parsed: unknown = JSON.parse(raw);
  const valid = (entry: unknown): entry is JwtKey =>
    typeof entry === 'object' &&
    entry !== null &&
    typeof (entry as JwtKey).key === 'string' &&
    Array.isArray((entry as JwtKey).algorithms) &&
    (entry as JwtKey).algorithms.every((algorithm) => algorithm === 'HS256' || algorithm === 'RS256' || algorithm === 'ES256');
  if (typeof parsed !== 'object' || parsed === null || !Object.values(parsed).every(valid)) {
    throw new Error('PARLEY_JWT_AUTH_KEYS must be {"<subdomain>": {"key": "...", "algorithms": ["HS256" | "RS256" | "ES256"]}}');
  }
  return parsed as Record<string, JwtKey>;
}

/** `<requests>/<seconds>`, e.g. `200/60`. */
function rateRule(name: string, raw: string): RateRule {
  const match = /^(\d+)\/(\d+)$/.exec(raw.trim());
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1) throw new Error(`${name} must be <requests>/<seconds>, e.g. 200/60, got '${raw}'`);
  return { limit: Number(match[1]), windowSeconds: Number(match[2]) };
}

function rateLimitSettings(env: NodeJS.ProcessEnv): RateLimitSettings {
  const realms = JSON.parse(env.PARLEY_RATE_LIMIT_REALMS || '{}') as Record<string, unknown>;
  return {
    enabled: boolSetting(env, 'PARLEY_RATE_LIMITS', true),
    user: rateRule('PARLEY_RATE_LIMIT_USER', env.PARLEY_RATE_LIMIT_USER || '200/60'),
    address: rateRule('PARLEY_RATE_LIMIT_ADDRESS', env.PARLEY_RATE_LIMIT_ADDRESS || '100/60'),
    realms: Object.fromEntries(Object.entries(realms).map(([subdomain, rule]) => [subdomain, rateRule(`PARLEY_RATE_LIMIT_REALMS["${subdomain}"]`, String(rule))])),
  };
}

function clusterSetting(env: NodeJS.ProcessEnv, host: string, port: number): ClusterSettings | null {
  const servers = (env.PARLEY_NATS_URL ?? '').split(',').map((server) => server.trim()).filter((server) => server !== '');
  if (servers.length === 0) return null;
  const replicas = intSetting(env, 'PARLEY_NATS_REPLICAS', 1);
  if (replicas !== 1 && replicas !== 3) throw new Error(`PARLEY_NATS_REPLICAS must be 1 or 3, got '${replicas}'`);
  return {
    servers,
    nodeId: env.PARLEY_NODE_ID || `${host}:${port}`,
    replicas,
    leaseMs: intSetting(env, 'PARLEY_LEASE_MS', 5000),
    snapshotEvery: Math.max(1, intSetting(env, 'PARLEY_SNAPSHOT_EVERY', 1000)),
    snapshotGrowth: Math.max(0, intSetting(env, 'PARLEY_SNAPSHOT_GROWTH', 100)),
    pinned: (env.PARLEY_REALMS_PINNED ?? '').split(',').map((name) => name.trim()).filter((name) => name !== ''),
  };
}

function videoProviderSetting(raw: string | undefined): VideoProvider | null {
  if (raw === undefined || raw === '') return null;
  const parsed = JSON.parse(raw) as Record<string, unknown>;
  const strings = (...names: string[]) => names.every((name) => typeof parsed[name] === 'string' && parsed[name] !== '');
  if (parsed.kind === 'jitsi' && strings('serverUrl')) return { kind: 'jitsi', serverUrl: String(parsed.serverUrl).replace(/\/+$/, '') };
  if (parsed.kind === 'oauth' && strings('authorizeUrl', 'tokenUrl', 'createMeetingUrl', 'clientId', 'clientSecret')) return parsed as VideoProvider;
  throw new Error('PARLEY_VIDEO_PROVIDER must be {"kind": "jitsi", "serverUrl": …} or {"kind": "oauth", "authorizeUrl", "tokenUrl", "createMeetingUrl", "clientId", "clientSecret"}');
}

function bigBlueButtonSetting(env: NodeJS.ProcessEnv): { url: string; secret: string } | null {
  const url = env.PARLEY_BIG_BLUE_BUTTON_URL ?? '';
  const secret = env.PARLEY_BIG_BLUE_BUTTON_SECRET ?? '';
  if (url === '' && secret === '') return null;
  if (url === '' || secret === '' || !URL.canParse(url)) throw new Error('PARLEY_BIG_BLUE_BUTTON_URL (an http(s) URL) and PARLEY_BIG_BLUE_BUTTON_SECRET are set together');
  return { url: url.replace(/\/+$/, ''), secret };
}

function s3Setting(env: NodeJS.ProcessEnv): S3Settings | null {
  const bucket = env.PARLEY_S3_BUCKET ?? '';
  if (bucket === '') return null;
  const endpoint = env.PARLEY_S3_ENDPOINT || 'https://s3.amazonaws.com';
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) throw new Error(`PARLEY_S3_ENDPOINT must be an http(s) URL, got '${endpoint}'`);
  return { endpoint, region: env.PARLEY_S3_REGION || 'us-east-1', bucket, accessKey: env.PARLEY_S3_ACCESS_KEY ?? '', secretKey: env.PARLEY_S3_SECRET_KEY ?? '' };
}

function logSettings(env: NodeJS.ProcessEnv): { level: string; format: LogFormat } {
  const level = env.PARLEY_LOG_LEVEL || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new Error(`PARLEY_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${level}'`);
  const format = env.PARLEY_LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json');
  if (format !== 'json' && format !== 'pretty') throw new Error(`PARLEY_LOG_FORMAT must be json or pretty, got '${format}'`);
  return { level, format };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const mode = env.PARLEY_MODE ?? 'development';
  if (mode !== 'development' && mode !== 'production') {
    throw new Error(`PARLEY_MODE must be development or production, got '${mode}'`);
  }
  const port = intSetting(env, 'PARLEY_PORT', 9991);
  const config: Config = {
    host: env.PARLEY_HOST || '127.0.0.1',
    port,
    dataDir: env.PARLEY_DATA_DIR || './data',
    externalHost: env.PARLEY_EXTERNAL_HOST || `localhost:${port}`,
    mode,
    maxBodyBytes: intSetting(env, 'PARLEY_MAX_BODY_BYTES', 4 * 1024 * 1024),
    maxBufferedBodyBytes: intSetting(env, 'PARLEY_MAX_BUFFERED_BODY_BYTES', 64 * 1024 * 1024),
    webPublicStreamsEnabled: boolSetting(env, 'PARLEY_WEB_PUBLIC_STREAMS_ENABLED', false),
    heartbeatSeconds: intSetting(env, 'PARLEY_HEARTBEAT_SECONDS', 50),
    queueLifespanSeconds: intSetting(env, 'PARLEY_QUEUE_LIFESPAN_SECONDS', 600),
    socketMaxBackpressureBytes: intSetting(env, 'PARLEY_SOCKET_MAX_BACKPRESSURE_BYTES', 1024 * 1024),
    jwtKeys: jwtKeysSetting(env.PARLEY_JWT_AUTH_KEYS),
    deleteTopicBudgetMs: intSetting(env, 'PARLEY_DELETE_TOPIC_BUDGET_MS', 30_000),
    storeSync: boolSetting(env, 'PARLEY_STORE_SYNC', true),
    passwordHashCost: passwordHashCostSetting(env),
    shutdownQuietMs: intSetting(env, 'PARLEY_SHUTDOWN_QUIET_MS', 50),
    clock: systemClock,
    pushRelay: env.PARLEY_PUSH_RELAY_URL
      ? { url: env.PARLEY_PUSH_RELAY_URL.replace(/\/+$/, ''), credentials: env.PARLEY_PUSH_RELAY_CREDENTIALS ?? '', timeoutMs: intSetting(env, 'PARLEY_PUSH_RELAY_TIMEOUT_MS', 10_000) }
      : null,
    mail: mailSetting(env),
    videoProvider: videoProviderSetting(env.PARLEY_VIDEO_PROVIDER),
    bigBlueButton: bigBlueButtonSetting(env),
    threads: intSetting(env, 'PARLEY_THREADS', 1, 1),
    realmThreads: intSetting(env, 'PARLEY_REALM_THREADS', 1, 1),
    // Every core but one, the realm thread's (the render pool is for one realm's long messages).
    renderThreads: intSetting(env, 'PARLEY_RENDER_THREADS', Math.max(0, availableParallelism() - 1)),
    // An eighth of the heap the realms' thread may grow to.
    keptJsonMb: intSetting(env, 'PARLEY_KEPT_JSON_MB', Math.floor(getHeapStatistics().heap_size_limit / 8 / 2 ** 20)),
    outgoingWebhooks: {
      allow: (env.PARLEY_OUTGOING_WEBHOOK_ALLOW ?? '').split(',').map((entry) => entry.trim()).filter(Boolean),
      timeoutMs: intSetting(env, 'PARLEY_OUTGOING_WEBHOOK_TIMEOUT_MS', 10_000),
    },
    rateLimits: rateLimitSettings(env),
    maxFileUploadSizeMib: intSetting(env, 'PARLEY_MAX_FILE_UPLOAD_SIZE_MIB', 25),
    uploadQuotaMib: env.PARLEY_UPLOAD_QUOTA_MIB ? intSetting(env, 'PARLEY_UPLOAD_QUOTA_MIB', 0) : null,
    s3: s3Setting(env),
    cluster: clusterSetting(env, env.PARLEY_HOST || '127.0.0.1', port),
    log: createLogger(logSettings(env)),
    metrics: new Metrics(),
    metricsListen: env.PARLEY_METRICS_PORT ? { host: env.PARLEY_METRICS_HOST || '127.0.0.1', port: intSetting(env, 'PARLEY_METRICS_PORT', 0) } : null,
  };
  checkProduction(config);
  return config;
}
