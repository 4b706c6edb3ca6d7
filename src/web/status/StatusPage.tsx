// The operator's page: the server's figures now (realms, users online, sockets, queues, store
// size; the cluster's nodes and who owns which realm), and rates and latencies over the last
// minutes, read from /status.json every two seconds.
import { useEffect, useState } from 'preact/hooks';
import { Chart } from './Chart.js';
import { formatBytes, formatMs, sampleBetween, type Sample, type StatusSnapshot } from './figures.js';

const REFRESH_MS = 2_000;
/** Samples kept for the charts: three minutes. */
const KEPT = 90;

const perSecond = (value: number | null) => (value === null ? '–' : `${value.toFixed(value < 10 ? 1 : 0)}/s`);
const count = (value: number | null) => (value === null ? '–' : String(value));

export function StatusPage() {
  const [latest, setLatest] = useState<StatusSnapshot | null>(null);
  const [samples, setSamples] = useState<Sample[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let previous: StatusSnapshot | null = null;
    const read = async () => {
      try {
        const response = await fetch('/status.json', { cache: 'no-store' });
        const snapshot = (await response.json()) as StatusSnapshot | null;
        if (!snapshot) return;
        if (previous) {
          const sample = sampleBetween(previous, snapshot);
          setSamples((kept) => [...kept.slice(-(KEPT - 1)), sample]);
        }
        previous = snapshot;
        setLatest(snapshot);
        setError(null);
      } catch {
        setError('The server does not answer.');
      }
    };
    void read();
    const timer = setInterval(() => void read(), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  if (!latest) return <main aria-busy="true">{error ?? 'Reading the server…'}</main>;
  const online = latest.realms.reduce((sum, realm) => sum + realm.usersOnline, 0);
  const tiles: [string, string][] = [
    ['Realms', String(latest.realms.length)],
    ['Users online', String(online)],
    ['Open sockets', String(latest.openSockets)],
    ['Event queues', String(latest.eventQueues)],
    ['Commands waiting', String(latest.mailboxDepth)],
    ['Store size', formatBytes(latest.storeBytes)],
    ['Up for', `${Math.floor(latest.uptimeSeconds / 3600)} h ${Math.floor((latest.uptimeSeconds % 3600) / 60)} min`],
  ];
  return (
    <main>
      <h1>Parley server status</h1>
      {error && <p role="alert">{error}</p>}
      <dl class="tiles" aria-label="Now">
        {tiles.map(([name, value]) => (
          <div key={name} data-figure={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <section aria-labelledby="charts-heading">
        <h2 id="charts-heading">Over the last minutes</h2>
        <div class="charts">
          <Chart title="Events delivered" values={samples.map((sample) => sample.eventsPerSecond)} format={perSecond} />
          <Chart title="Requests" values={samples.map((sample) => sample.requestsPerSecond)} format={perSecond} />
          <Chart title="Request latency p50" values={samples.map((sample) => sample.p50)} format={formatMs} />
          <Chart title="Request latency p95" values={samples.map((sample) => sample.p95)} format={formatMs} />
          <Chart title="Request latency p99" values={samples.map((sample) => sample.p99)} format={formatMs} />
          <Chart title="Write commit p99" values={samples.map((sample) => sample.commitP99)} format={formatMs} />
          <Chart title="Open sockets" values={samples.map((sample) => sample.openSockets)} format={count} />
        </div>
      </section>
      {latest.nodes && (
        <section aria-labelledby="nodes-heading">
          <h2 id="nodes-heading">Cluster nodes</h2>
          <ul class="nodes">
            {latest.nodes.map((node) => (
              <li key={node}>
                {node}: {latest.realms.filter((realm) => realm.owner === node).map((realm) => realm.subdomain || '(root)').join(', ') || 'no realms'}
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="realms-heading">
        <h2 id="realms-heading">Realms</h2>
        <table class="realms">
          <thead>
            <tr>
              <th scope="col">ID</th>
              <th scope="col">Subdomain</th>
              <th scope="col">Loaded here</th>
              <th scope="col">Users online</th>
              {latest.nodes && <th scope="col">Owner</th>}
            </tr>
          </thead>
          <tbody>
            {latest.realms.map((realm) => (
              <tr key={realm.id} data-realm-id={realm.id}>
                <td>{realm.id}</td>
                <td>{realm.subdomain || '(root)'}</td>
                <td>{realm.loaded ? 'yes' : 'no'}</td>
                <td>{realm.usersOnline}</td>
                {latest.nodes && <td>{realm.owner ?? 'none'}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </main>
  );
}
