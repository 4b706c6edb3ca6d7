// The cluster's shared pieces on NATS JetStream, created on first use by whichever node comes first:
// the realm log stream, and key-value buckets for leases, the realm directory, live nodes, ID
// blocks and presence. Subjects and bucket names are all here.
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { Objm, setSha256Backend, type ObjectStore } from '@nats-io/obj';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { ClusterSettings } from '../config.js';
import type { Logger } from '../ops/log.js';
import { presenceTiming } from '../users/presence.js';
import { Inbox } from './inbox.js';

export const LOG_STREAM = 'PARLEY_LOG';
export const subjects = {
  /** A realm's log: its committed change sets, in order. */
  log: (realmId: number) => `parley.log.${realmId}`,
  /** A realm's events, once per emission, from its owner to every node. */
  events: (realmId: number) => `parley.events.${realmId}`,
  allEvents: 'parley.events.*',
  /** Commands for a realm, answered by its owner. */
  commands: (realmId: number) => `parley.realm.${realmId}.cmd`,
  /** A realm's memory changed at its owner: what other nodes derived from it (credentials) goes. */
  changed: (realmId: number) => `parley.realm.${realmId}.changed`,
  allChanged: 'parley.realm.*.changed',
  /** Which users hold event queues on a node, told to the realm's owner (changes, or all of them). */
  holders: (realmId: number) => `parley.realm.${realmId}.holders`,
  /** A realm's new owner asks every node for all of its holders of the realm. */
  holdersAsk: 'parley.holders.ask',
  /** A node (re)starting: what it told before is void. */
  holdersReset: 'parley.holders.reset',
  /** Requests to make a realm, answered by one node (the management CLI's create-realm). */
  createRealm: 'parley.admin.create-realm',
};

/** JetStream's error for an expected last sequence that is not the subject's: a fence (a log
 * append, a lease) someone else moved first. */
export const WRONG_LAST_SEQUENCE = 10071;

/** The largest message the log is sent (NATS's default limit is 1 MiB; a bigger write goes in parts). */
export const MAX_LOG_MESSAGE_BYTES = 512 * 1024;

export interface Cluster {
  nc: NatsConnection;
  /** Where answers to this connection's requests come (log appends, commands of other nodes). */
  inbox: Inbox;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Realm ID → its owner's lease. */
  leases: KV;
  /** Realm ID → its subdomain; and 'next' → the next realm ID. */
  realms: KV;
  /** Node ID → the node's heartbeat. */
  nodes: KV;
  /** ID kind → the highest ID handed out in blocks so far. */
  ids: KV;
  /** `<realm>.<user>` → the user's presence record, each kept for presence's history window. */
  presence: KV;
  /** Realm snapshots (`realm-<id>`), after which the log is trimmed. */
  snapshots: ObjectStore;
}

/** How long a starting node waits for JetStream to answer: servers started together need a few
 * seconds to elect their JetStream leader, and until then every request times out. */
const JETSTREAM_STARTUP_MS = 90_000;

export async function openCluster(settings: ClusterSettings, log: Logger): Promise<Cluster> {
  // No stack captured for every request (noAsyncTraces): each log append is a JetStream request,
  // and the trace's Error cost ~30 µs of the node's CPU per append; a failed request still says
  // what failed. No echo: what a node publishes (its event batches, its reports of queue holders)
  // is for the other nodes, and nats-server need not send it back.
  const nc = await connect({ servers: settings.servers, name: `parley ${settings.nodeId}`, maxReconnectAttempts: -1, noAsyncTraces: true, noEcho: true });
  try {
    return await untilJetStreamAnswers(() => openShared(nc, settings), log);
  } catch (error) {
    await nc.close();
    throw error;
  }
}

async function openShared(nc: NatsConnection, settings: ClusterSettings): Promise<Cluster> {
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const streamConfig = { name: LOG_STREAM, subjects: ['parley.log.>'], num_replicas: settings.replicas, allow_direct: true, max_msg_size: MAX_LOG_MESSAGE_BYTES + 64 * 1024 };
  await jsm.streams.info(LOG_STREAM).catch(() => jsm.streams.add(streamConfig));
  const kvm = new Kvm(js);
  const bucket = (name: string) => kvm.create(name, { history: 1, replicas: settings.replicas });
  const [leases, realms, nodes, ids] = await Promise.all([bucket('parley_leases'), bucket('parley_realms'), bucket('parley_nodes'), bucket('parley_ids')]);
  // A record not rewritten for the history window is one clients no longer ask for by default.
  const presence = await kvm.create('parley_presence', { history: 1, replicas: settings.replicas, ttl: presenceTiming.defaultHistoryDays * 86_400_000 });
  // The object store digests what it stores and reads (SHA-256) in JavaScript by default; node's
  // is several times faster (a snapshot digested in JavaScript cost ~27 µs of CPU a message at 100
  // subscribers).
  setSha256Backend('native');
  const snapshots = await new Objm(js).create('parley_snapshots', { replicas: settings.replicas });
  return { nc, inbox: new Inbox(nc), js, jsm, leases, realms, nodes, ids, presence, snapshots };
}

/** Runs `attempt` again (creating the shared pieces is idempotent) while JetStream does not answer
 * yet, up to JETSTREAM_STARTUP_MS; any other error ends the start at once. */
async function untilJetStreamAnswers<T>(attempt: () => Promise<T>, log: Logger): Promise<T> {
  const deadline = performance.now() + JETSTREAM_STARTUP_MS;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!notAnsweringYet(error) || performance.now() > deadline) throw error;
      log.warn({ try: tries, reason: error.message }, 'JetStream not answering yet; trying again');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** A request that timed out, found no responder, or was refused as "JetStream not ready / no leader". */
function notAnsweringYet(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  return /timeout|no responders|503|not (?:yet )?(?:ready|available)|no suitable peers|leader/i.test(`${error.name} ${error.message}`);
}
