// The realms of every shard of a data directory, in one process (the management CLI on a stopped
// server; ARCHITECTURE.md, "Several realm threads"): a realm is found in the shard that holds its
// row, the default realm is the first created (the lowest ID of any shard's), and a new realm goes
// to the shard with the fewest realms of those the server's realm threads hold (the first
// PARLEY_REALM_THREADS: a server on one thread, whose realms must all be in shard 0, is never given
// one elsewhere), its subdomain checked against every shard's.
import type { RealmActor } from './actor.js';
import { firstCreated, InvalidRealmError, type NewRealm, type Realms, type RealmsHere } from './registry.js';

export class RealmShards implements RealmsHere {
  constructor(
    private readonly shards: readonly Realms[],
    /** How many of them, from shard 0, new realms go to. */
    private readonly placing: number,
  ) {}

  bySubdomainName(subdomain: string): RealmActor | undefined {
    for (const realms of this.shards) {
      const realm = realms.bySubdomainName(subdomain);
      if (realm) return realm;
    }
    return undefined;
  }

  /** The realm served when a Host header names none. */
  defaultRealm(): RealmActor | undefined {
    const id = firstCreated(this.shards.map((realms) => realms.directory().defaultRealm));
    return id === undefined ? undefined : this.shards.map((realms) => realms.byId(id)).find((realm) => realm !== undefined);
  }

  async create(input: NewRealm): Promise<RealmActor> {
    if (this.bySubdomainName(input.subdomain)) throw new InvalidRealmError(`a realm with subdomain '${input.subdomain}' exists`);
    const emptiest = this.shards.slice(0, Math.max(1, this.placing)).reduce((least, realms) => (realms.overview().length < least.overview().length ? realms : least));
    return emptiest.create(input);
  }

  /** Resolves once every shard's accepted writes are durable. */
  async idle(): Promise<void> {
    await Promise.all(this.shards.map((realms) => realms.idle()));
  }
}
