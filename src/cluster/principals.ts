// Credentials a gateway accepted for realms owned elsewhere, kept so that a request asks the owner
// one command, not two (its credentials, then its command). What is kept stands until the realm's
// memory next changes, and for KEPT_MS at most: the owner says when it changes
// (`parley.realm.<id>.changed`, published before it answers the write that changed it, once when it
// takes the realm, and for each realm it owns after its connection to NATS comes back), and this
// node forgets everything kept of that realm; it keeps nothing while its own connection is broken,
// and forgets all once it breaks. Only an answer of the owner this node knows of is kept, and only
// if no change was heard while it travelled. A command sent on kept credentials carries them, and
// the owner runs it only if they still name the same principal (commandServer.ts): what reaches
// the owner never misses a change, and what a gateway answers alone (its event queues) hears of it
// as fast as NATS delivers, or within KEPT_MS.
import type { Principal } from '../auth/basic.js';
import { KEPT_PRINCIPALS } from '../organization/state.js';
import { subjects, type Cluster } from './connection.js';

/** How long accepted credentials are kept at most, should word of a change be lost. */
export const KEPT_MS = 10_000;

/** Credentials as a command takes them: an Authorization header, or an incoming webhook's key. */
export type Credentials = ['auth.basic', { authorization: string }] | ['auth.apiKey', { apiKey: string }];

const keyOf = ([name, input]: Credentials): string => (name === 'auth.basic' ? `basic ${input.authorization}` : `key ${input.apiKey}`);

/** Whether two principals are the same user with the same standing. */
export function samePrincipal(a: Principal, b: Principal): boolean {
  return a.userId === b.userId && a.role === b.role && a.isBot === b.isBot && a.incomingWebhook === b.incomingWebhook;
}

/** One realm's accepted credentials (each with when it was checked), as of a count of the changes
 * this node heard of. */
interface RealmPrincipals {
  kept: Map<string, { principal: Principal; at: number }>;
  changes: number;
  /** The lease epoch of the realm's owner when this node last looked. */
  epoch: number | undefined;
}

export class KeptPrincipals {
  private readonly realms = new Map<number, RealmPrincipals>();
  private connected = true;

  constructor(
    private readonly cluster: Cluster,
    /** The lease epoch of a realm's owner, as this node knows it. */
    private readonly epochOf: (realmId: number) => number | undefined,
    /** The realms this node owns. */
    private readonly owned: () => Iterable<number>,
  ) {
    cluster.nc.subscribe(subjects.allChanged, {
      callback: (error, message) => {
        if (!error) this.forget(Number(message.subject.split('.')[2]));
      },
    });
    void (async () => {
      for await (const status of cluster.nc.status()) {
        if (status.type === 'disconnect' || status.type === 'staleConnection') {
          this.connected = false;
          for (const realmId of this.realms.keys()) this.forget(realmId);
        } else if (status.type === 'reconnect') {
          this.connected = true;
          for (const realmId of this.realms.keys()) this.forget(realmId);
          // What this node said while the connection broke may never have gone out.
          for (const realmId of this.owned()) void this.changed(realmId);
        }
      }
    })();
  }

  /** The principal kept for the credentials, if any. */
  get(realmId: number, credentials: Credentials): Principal | undefined {
    if (!this.connected) return undefined;
    const realm = this.realms.get(realmId);
    const kept = realm?.kept.get(keyOf(credentials));
    if (!kept) return undefined;
    if (performance.now() - kept.at <= KEPT_MS) return kept.principal;
    realm!.kept.delete(keyOf(credentials));
    return undefined;
  }

  /** Asks the owner for the credentials' principal (`check`, with the lease epoch of the owner that
   * answered), and keeps it if that owner is the one this node knows of and the realm's memory did
   * not change while the answer travelled. */
  async check(realmId: number, credentials: Credentials, check: () => Promise<{ principal: Principal; epoch: number | undefined }>): Promise<Principal> {
    const realm = this.realm(realmId);
    const changes = realm.changes;
    const at = performance.now();
    const { principal, epoch } = await check();
    if (this.connected && realm.changes === changes && epoch !== undefined && epoch === this.epochOf(realmId)) {
      if (realm.kept.size >= KEPT_PRINCIPALS) realm.kept.clear();
      realm.kept.set(keyOf(credentials), { principal, at });
    }
    return principal;
  }

  /** The realm's lease changed: should it name a later owner than the one that answered what is
   * kept (an earlier one may have answered from a state the later one no longer has), it goes. */
  leaseChanged(realmId: number): void {
    const realm = this.realms.get(realmId);
    const epoch = this.epochOf(realmId);
    if (!realm || epoch === undefined || epoch === realm.epoch) return;
    realm.epoch = epoch;
    this.forget(realmId);
  }

  /** Forgets what was kept for the credentials (the owner no longer accepts them as they were). */
  drop(realmId: number, credentials: Credentials): void {
    this.realms.get(realmId)?.kept.delete(keyOf(credentials));
  }

  /** A realm owned here changed its memory: this node (which does not hear itself) and every other
   * forget what they kept of it. Resolves once nats-server has the word (it has then passed it on
   * to the other nodes), so that the write that changed it is answered after. */
  async changed(realmId: number): Promise<void> {
    this.forget(realmId);
    try {
      this.cluster.nc.publish(subjects.changed(realmId));
      await this.cluster.nc.flush();
    } catch {
      // The connection is closing (the node stops): no other node is served from here any more,
      // and what they kept lapses within KEPT_MS.
    }
  }

  private forget(realmId: number): void {
    const realm = this.realms.get(realmId);
    if (!realm) return;
    realm.kept.clear();
    realm.changes++;
  }

  private realm(realmId: number): RealmPrincipals {
    let realm = this.realms.get(realmId);
    if (!realm) this.realms.set(realmId, (realm = { kept: new Map(), changes: 0, epoch: this.epochOf(realmId) }));
    return realm;
  }
}
