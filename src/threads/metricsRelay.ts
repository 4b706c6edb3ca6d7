// The realm thread's measurements go to the server's metrics on the I/O thread (which serves
// them), gathered for a moment and sent together.
import { Metrics } from '../ops/metrics.js';
import type { FromRealmThread, Observation } from './protocol.js';

/** How long measurements gather before they are sent. */
const RELAY_INTERVAL_MS = 250;

export class RelayedMetrics extends Metrics {
  private observations: Observation[] = [];

  constructor(private readonly post: (message: FromRealmThread) => void) {
    super();
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

/** Records what the realm thread measured in the server's metrics. */
export function record(metrics: Metrics, observations: readonly Observation[]): void {
  for (const observation of observations) {
    if (observation[0] === 'command') metrics.command(observation[1], observation[2], observation[3]);
    else if (observation[0] === 'commit') metrics.commit(observation[1]);
    else metrics.rendered(observation[1]);
  }
}
