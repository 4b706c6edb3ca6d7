// Credentials a gateway accepted for realms owned elsewhere, kept so that a request asks the owner
// one command, not two (its credentials, then its command). What is kept stands until the realm's
// memory next changes: its owner says so (`parley.realm.<id>.changed`, published before it answers
// the write that changed it, and once when it takes the realm), and this node forgets everything
// kept of that realm; after a break in its connection to NATS it forgets every realm's. A command
// sent on kept credentials carries them, and the owner runs it only if they still name the same
// principal (remote.ts): a change is never missed by what reaches the owner, and what a gateway
// answers alone (its event queues) hears of it as fast as NATS delivers.
import type { Principal } from '../auth/basic.js';
import { KEPT_PRINCIPALS } from '../organization/state.js';
import { subjects, type Cluster } from './connection.js';

/** Credentials as a command takes them: an Authorization header, or an incoming webhook's key. */
export type Credentials = ['auth.basic', { authorization: string }] | ['auth.apiKey', { apiKey: string }];

const keyOf = ([name, input]: Credentials): string => (name === 'auth.basic' ? `basic ${input.authorization}` : `key ${input.apiKey}`);

/** Whether two principals are the same user with the same standing. */
export function samePrincipal(a: Principal, b: Principal): boolean {
  return a.userId === b.userId && a.role === b.role && a.isBot === b.isBot && a.incomingWebhook === b.incomingWebhook;
}

/** One realm's accepted credentials, as of a count of the changes this node heard of. */
interface RealmPrincipals {
  kept: Map<string, Principal>;
  changes: number;
}

export class KeptPrincipals {
  private readonly realms = new Map<number, RealmPrincipals>();

  constructor(private readonly cluster: Cluster) {
    cluster.nc.subscribe(subjects.allChanged, {
      callback: (error, message) => {
        if (!error) this.forget(Number(message.subject.split('.')[2]));
      },
    });
    void (async () => {
      for await (const status of cluster.nc.status()) if (status.type === 'reconnect') for (const realmId of this.realms.keys()) this.forget(realmId);
    })();
  }

  /** The principal kept for the credentials, if any. */
  get(realmId: number, credentials: Credentials): Principal | undefined {
    return this.realms.get(realmId)?.kept.get(keyOf(credentials));
  }

  /** Asks the owner for the credentials' principal (`check`), and keeps it unless the realm's
   * memory changed while the answer travelled. */
  async check(realmId: number, credentials: Credentials, check: () => Promise<Principal>): Promise<Principal> {
    const realm = this.realm(realmId);
    const changes = realm.changes;
    const principal = await check();
    if (realm.changes === changes) {
      if (realm.kept.size >= KEPT_PRINCIPALS) realm.kept.clear();
      realm.kept.set(keyOf(credentials), principal);
    }
    return principal;
  }

  /** Forgets what was kept for the credentials (the owner no longer accepts them as they were). */
  drop(realmId: number, credentials: Credentials): void {
    this.realms.get(realmId)?.kept.delete(keyOf(credentials));
  }

  /** Tells every node that a realm owned here changed its memory: what they kept goes. */
  changed(realmId: number): void {
    this.cluster.nc.publish(subjects.changed(realmId));
  }

  private forget(realmId: number): void {
    const realm = this.realms.get(realmId);
    if (!realm) return;
    realm.kept.clear();
    realm.changes++;
  }

  private realm(realmId: number): RealmPrincipals {
    let realm = this.realms.get(realmId);
    if (!realm) this.realms.set(realmId, (realm = { kept: new Map(), changes: 0 }));
    return realm;
  }
}
