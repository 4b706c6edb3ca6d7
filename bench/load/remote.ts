// A runner on an agent (`load agent` on another machine): the same steps as local worker
// threads, over the agent's HTTP interface. Progress is fetched in the background each second.
import type { Measurements } from './measurements.js';
import type { Progress, WorkerPlan } from './plan.js';
import type { Runner } from './runner.js';

async function call<T>(url: string, payload: unknown = {}): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(payload) });
  const value = (await response.json()) as T & { msg?: string };
  if (!response.ok) throw new Error(`agent ${url}: ${response.status} ${value.msg ?? ''}`);
  return value;
}

export class RemoteRunner implements Runner {
  readonly ready: Promise<void>;
  private latest: Progress[] = [];
  private poller: NodeJS.Timeout | undefined;
  private readonly run: Promise<string>;

  constructor(agent: string, plans: readonly WorkerPlan[]) {
    const base = agent.startsWith('http') ? agent : `http://${agent}`;
    this.run = call<{ id: string }>(`${base}/runs`, { plans }).then(({ id }) => `${base}/runs/${id}`);
    this.ready = this.run.then((run) => call(`${run}/ready`)).then(() => undefined);
  }

  start(startAt: number): void {
    void this.run.then((run) => call(`${run}/start`, { startAt }));
    this.poller = setInterval(() => {
      void this.run.then((run) => call<Progress[]>(`${run}/progress`)).then((progress) => (this.latest = progress), () => undefined);
    }, 1000);
  }

  progress(): Progress[] {
    return this.latest;
  }

  stop(): void {
    void this.run.then((run) => call(`${run}/stop`)).catch(() => undefined);
  }

  async finish(): Promise<Measurements[]> {
    clearInterval(this.poller);
    return call<Measurements[]>(`${await this.run}/finish`);
  }

  abort(): void {
    clearInterval(this.poller);
  }
}
