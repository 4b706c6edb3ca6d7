// Entry point: `npm start`. Configuration comes from the environment (README.md, "Configuration").
import { startParley } from './app.js';
import { loadConfig } from './config.js';

const config = loadConfig();
const parley = await startParley(config).catch((error: unknown) => {
  console.error(`Parley could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
console.log(`Parley (${config.mode}) listening on http://${config.host}:${parley.http.port}, data in ${config.dataDir}`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: finishing in-flight requests and closing the store`);
  await parley.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
