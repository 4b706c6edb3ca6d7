// Entry point: `npm start`. Configuration comes from the environment (docs/configuration.md).
import { startServer } from './app.js';
import { loadConfig } from './config.js';

const config = loadConfig();
// Start-up and shutdown are logged whatever the level (short of silent): operators and scripts
// wait for the line that says where the server listens.
const lifecycle = config.log.child({}, { level: config.log.level === 'silent' ? 'silent' : 'info' });
const parley = await startServer(config).catch((error: unknown) => {
  config.log.fatal({ err: error }, `Parley could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
lifecycle.info({ port: parley.http.port }, `Parley (${config.mode}) listening on http://${config.host}:${parley.http.port}, data in ${config.dataDir}`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  lifecycle.info({ signal }, 'finishing in-flight requests and closing the store');
  // A stop that fails still ends the process (every write answered was durable), for its
  // supervisor to start it again.
  const stopped = await parley.close().then(
    () => true,
    (error: unknown) => {
      config.log.fatal({ err: error }, 'Parley could not stop cleanly');
      return false;
    },
  );
  if (stopped) lifecycle.info('stopped');
  process.exit(stopped ? 0 : 1);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
