// Server settings, read once from environment variables; every setting has a documented default
// (README.md, "Configuration").

export type Mode = 'development' | 'production';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  externalHost: string;
  mode: Mode;
  maxBodyBytes: number;
  /** Enables is_web_public channels server-wide (Zulip's WEB_PUBLIC_STREAMS_ENABLED). */
  webPublicStreamsEnabled: boolean;
  /** A parked long-poll is answered with a heartbeat after this long (below the 90 s clients wait). */
  heartbeatSeconds: number;
  /** How long an event queue lives without a client attached, unless register asks for longer. */
  queueLifespanSeconds: number;
  /** An event socket whose unsent data passes this is closed (4008); the client resumes. */
  socketMaxBackpressureBytes: number;
}

function intSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got '${raw}'`);
  return value;
}

function boolSetting(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new Error(`${name} must be true or false, got '${raw}'`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const mode = env.PARLEY_MODE ?? 'development';
  if (mode !== 'development' && mode !== 'production') {
    throw new Error(`PARLEY_MODE must be development or production, got '${mode}'`);
  }
  const port = intSetting(env, 'PARLEY_PORT', 9991);
  return {
    host: env.PARLEY_HOST || '127.0.0.1',
    port,
    dataDir: env.PARLEY_DATA_DIR || './data',
    externalHost: env.PARLEY_EXTERNAL_HOST || `localhost:${port}`,
    mode,
    maxBodyBytes: intSetting(env, 'PARLEY_MAX_BODY_BYTES', 25 * 1024 * 1024),
    webPublicStreamsEnabled: boolSetting(env, 'PARLEY_WEB_PUBLIC_STREAMS_ENABLED', false),
    heartbeatSeconds: intSetting(env, 'PARLEY_HEARTBEAT_SECONDS', 50),
    queueLifespanSeconds: intSetting(env, 'PARLEY_QUEUE_LIFESPAN_SECONDS', 600),
    socketMaxBackpressureBytes: intSetting(env, 'PARLEY_SOCKET_MAX_BACKPRESSURE_BYTES', 1024 * 1024),
  };
}
