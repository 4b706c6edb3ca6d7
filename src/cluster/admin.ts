// Administration of a running cluster (the management CLI with PARLEY_NATS_URL set): realms are
// found in the cluster's directory and asked through their owners like any remote realm; a new
// realm is made by whichever node answers `parley.admin.create-realm` first (a queue group), which
// then owns it.
import type { Subscription } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import type { ClusterSettings } from '../config.js';
import type { Logger } from '../ops/log.js';
import type { RealmHandle } from '../realm/handle.js';
import { InvalidRealmError, type NewRealm, type RealmCreator } from '../realm/registry.js';
import { openCluster, subjects, type Cluster } from './connection.js';
import { CommandSender, RemoteRealm } from './remote.js';
import type { Lease } from './leases.js';
import { kvCodec, Watched } from './watched.js';

const codec = new Packr({ useRecords: false });

type CreateReply = { ok: { id: number; subdomain: string } } | { error: string };

/** How long the CLI waits for a node to make a realm (a lease and a first log append). */
const CREATE_DEADLINE_MS = 30_000;
const ADMIN_QUEUE = 'parley-admin';

/** Makes realms asked for through the cluster with `creator` (this node). */
export function serveAdmin(cluster: Cluster, creator: RealmCreator, log: Logger): Subscription {
  const answer = async (data: Uint8Array): Promise<CreateReply> => {
    const input = codec.unpack(data) as NewRealm;
    try {
      const { realm } = await creator.create(input);
      return { ok: { id: realm.id, subdomain: realm.subdomain } };
    } catch (error) {
      log.warn({ err: error, subdomain: input.subdomain }, 'realm not created');
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };
  return cluster.nc.subscribe(subjects.createRealm, {
    queue: ADMIN_QUEUE,
    callback: (error, message) => {
      if (error) return;
      void answer(message.data).then((reply) => message.respond(codec.pack(reply)));
    },
  });
}

/** The CLI's view of a cluster: its realms, each asked through its owner. */
export class ClusterAdmin implements RealmCreator {
  /** Commands the CLI asks of the realms' owners, each sent to the owner the leases name. */
  private readonly sender: CommandSender;

  /** The realms' leases, as they change. */
  private readonly leases: Watched<Lease>;

  private constructor(private readonly cluster: Cluster) {
    this.leases = new Watched<Lease>(cluster.leases, (key, lease) => this.sender.ownerChanged(Number(key), lease));
    this.sender = new CommandSender(cluster, (realmId) => this.leases.get(String(realmId))?.value.epoch);
  }

  static async connect(settings: ClusterSettings, log: Logger): Promise<ClusterAdmin> {
    const admin = new ClusterAdmin(await openCluster(settings, log));
    try {
      await admin.leases.start();
    } catch (error) {
      await admin.cluster.nc.close();
      throw error;
    }
    return admin;
  }

  /** The realms of the directory, by ID, each asked through its owner. */
  async list(): Promise<RemoteRealm[]> {
    const realms: RemoteRealm[] = [];
    for await (const key of await this.cluster.realms.keys()) {
      if (!/^\d+$/.test(key)) continue;
      const entry = await this.cluster.realms.get(key);
      if (entry?.operation === 'PUT') realms.push(new RemoteRealm(this.sender, { id: Number(key), ...(kvCodec.unpack(entry.value) as { subdomain: string }) }));
    }
    return realms.sort((a, b) => a.realm.id - b.realm.id);
  }

  /** The realm with this subdomain; without one, the default realm (the root's, else the oldest). */
  async realm(subdomain: string | undefined): Promise<RealmHandle | undefined> {
    const realms = await this.list();
    return subdomain === undefined ? (realms.find(({ realm }) => realm.subdomain === '') ?? realms[0]) : realms.find(({ realm }) => realm.subdomain === subdomain);
  }

  async create(input: NewRealm): Promise<RealmHandle> {
    const message = await this.cluster.nc.request(subjects.createRealm, codec.pack(input), { timeout: CREATE_DEADLINE_MS });
    const reply = codec.unpack(message.data) as CreateReply;
    // The node's refusal (a subdomain taken or invalid), as a data directory's Realms would say it.
    if ('error' in reply) throw new InvalidRealmError(reply.error);
    return new RemoteRealm(this.sender, reply.ok);
  }

  async close(): Promise<void> {
    this.leases.close();
    await this.cluster.nc.drain();
  }
}
