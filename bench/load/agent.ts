// `load agent`: worker threads on this machine at a coordinator's call (`load coordinate`), over a
// small HTTP interface — create a run from its workers' plans, then ready / start / progress /
// stop / finish. Listens on loopback unless told otherwise: it runs load against whatever the
// coordinator names, so expose it only on a network you trust.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { WorkerPlan } from './plan.js';
import { LocalRunner, type Runner } from './runner.js';

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function answer(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(value));
}

export function startAgent(host: string, port: number): Promise<{ url: string; close(): void }> {
  const runs = new Map<string, Runner>();
  let next = 0;
  const server = createServer((request, response) => {
    void (async () => {
      const [, runs_, id, action] = (request.url ?? '').split('/');
      if (request.method === 'POST' && runs_ === 'runs' && id === undefined) {
        const { plans } = (await body(request)) as { plans: WorkerPlan[] };
        const key = String(++next);
        runs.set(key, new LocalRunner(plans));
        return answer(response, 200, { id: key });
      }
      const run = runs_ === 'runs' && id !== undefined ? runs.get(id) : undefined;
      if (!run) return answer(response, 404, { msg: 'no such run' });
      if (action === 'ready') await run.ready;
      else if (action === 'start') run.start(((await body(request)) as { startAt: number }).startAt);
      else if (action === 'progress') return answer(response, 200, run.progress());
      else if (action === 'stop') run.stop();
      else if (action === 'finish') {
        runs.delete(id!);
        return answer(response, 200, await run.finish());
      } else return answer(response, 404, { msg: 'no such action' });
      answer(response, 200, {});
    })().catch((error: unknown) => answer(response, 500, { msg: (error as Error).message }));
  });
  return new Promise((resolve) => {
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      resolve({ url: `http://${host}:${bound}`, close: () => server.close() });
    });
  });
}
