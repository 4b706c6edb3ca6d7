// A worker thread's measurements (the realm thread's, an I/O thread's) go to the server's metrics
// on the main thread (which serves them), gathered for a moment and sent together.
import { Metrics } from '../ops/metrics.js';
import type { Observation } from './protocol.js';

/** How long measurements gather before they are sent. */
const RELAY_INTERVAL_MS = 250;

export class RelayedMetrics extends Metrics {
  private observations: Observation[] = [];

  constructor(private readonly post: (message: { kind: 'metrics'; observations: Observation[] }) => void) {
    super();
  }

  override request(method: string, route: string, status: number, seconds: number): void {
    this.gather(['request', method, route, status, seconds]);
  }

  override fanout(deliveries: number, seconds: number): void {
    this.gather(['fanout', deliveries, seconds]);
  }

  override socketClosed(code: number): void {
    this.gather(['socketClosed', code]);
  }

  override command(command: string, outcome: 'ok' | 'error', seconds: number): void {
    this.gather(['command', command, outcome, seconds]);
  }

  override commit(seconds: number): void {
    this.gather(['commit', seconds]);
  }

  override rendered(on: 'worker' | 'realm'): void {
    this.gather(['rendered', on]);
  }

  private gather(observation: Observation): void {
    if (this.observations.length === 0) setTimeout(() => this.post({ kind: 'metrics', observations: this.observations.splice(0) }), RELAY_INTERVAL_MS).unref();
    this.observations.push(observation);
  }
}

/** Records what a worker thread measured in the server's metrics. */
export function record(metrics: Metrics, observations: readonly Observation[]): void {
  for (const observation of observations) {
    switch (observation[0]) {
      case 'command':
        metrics.command(observation[1], observation[2], observation[3]);
        break;
      case 'commit':
        metrics.commit(observation[1]);
        break;
      case 'rendered':
        metrics.rendered(observation[1]);
        break;
      case 'request':
        metrics.request(observation[1], observation[2], observation[3], observation[4]);
        break;
      case 'fanout':
        metrics.fanout(observation[1], observation[2]);
        break;
      case 'socketClosed':
        metrics.socketClosed(observation[1]);
        break;
    }
  }
}
