// `npm run load -- …`: the load tester's entry point (docs/load-testing.md). Exits 0 when a run
// completed (however slow the server), 2 on a usage error, 1 when it could not run.
import { startAgent } from './agent.js';
import { compare } from './compare.js';
import { parseCommandLine, runOptions, USAGE, UsageError } from './options.js';
import { runLoad } from './run.js';

async function main(): Promise<void> {
  const { positionals, values } = parseCommandLine(process.argv.slice(2));
  if (values.help) return void console.log(USAGE);
  const [command = 'run', ...rest] = positionals;
  if (command === 'compare') {
    if (rest.length !== 2) throw new UsageError('compare needs two report directories (or report.json files)');
    console.log(`comparison: ${compare(rest[0]!, rest[1]!, values.out ?? 'load-compare')}`);
  } else if (command === 'agent') {
    const [host = '127.0.0.1', port = '7878'] = (values.listen ?? '').split(':').filter((part) => part !== '');
    const agent = await startAgent(host, Number(port));
    console.log(`load agent listening on ${agent.url}`);
    await new Promise<void>((resolve) => process.once('SIGINT', resolve));
    agent.close();
  } else if (command === 'coordinate' || command === 'run') {
    const options = runOptions(values);
    if (command === 'coordinate' && options.agents.length === 0) throw new UsageError('coordinate needs --agents HOST:PORT,...');
    if (command === 'run' && options.agents.length > 0) throw new UsageError('--agents belongs to `load coordinate`');
    if (command === 'coordinate' && values.workers === undefined) options.workers = 1;
    await runLoad(options);
  } else throw new UsageError(`unknown command '${command}'`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof UsageError) console.error(`load: ${error.message}\n\n${USAGE}`);
    else console.error(`load: ${(error as Error).message}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
