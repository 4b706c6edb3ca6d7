// The realms of every shard of a data directory, in one process (the management CLI on a stopped
// server; ARCHITECTURE.md, "Several realm threads"): a realm is found in the shard that holds its
// row, the default realm is the first created (the lowest ID of any shard's), and a new realm goes
// to the shard with the fewest realms, its subdomain checked against every shard's.
import type { RealmActor } from './actor.js';
import { InvalidRealmError, type NewRealm, type Realms, type RealmsHere } from './registry.js';

export class RealmShards implements RealmsHere {
  constructor(private readonly shards: readonly Realms[]) {}

  bySubdomainName(subdomain: string): RealmActor | undefined {
    for (const realms of this.shards) {
      const realm = realms.bySubdomainName(subdomain);
      if (realm) return realm;
    }
    return undefined;
  }

  /** The realm served when a Host header names none. */
  defaultRealm(): RealmActor | undefined {
    let first: { realms: Realms; id: number } | undefined;
    for (const realms of this.shards) {
      const id = realms.directory().defaultRealm;
      if (id !== undefined && (first === undefined || id < first.id)) first = { realms, id };
    }
    return first && first.realms.byId(first.id);
  }

  async create(input: NewRealm): Promise<RealmActor> {
    if (this.bySubdomainName(input.subdomain)) throw new InvalidRealmError(`a realm with subdomain '${input.subdomain}' exists`);
    const emptiest = this.shards.reduce((least, realms) => (realms.overview().length < least.overview().length ? realms : least));
    return emptiest.create(input);
  }

  /** Resolves once every shard's accepted writes are durable. */
  async idle(): Promise<void> {
    await Promise.all(this.shards.map((realms) => realms.idle()));
  }
}
