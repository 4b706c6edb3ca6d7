// Who holds a realm's event queues, as the queues' side tells the realm's side when they are apart
// (nodes of a cluster; the I/O thread and the realm thread): each user's holding, told whenever it
// changes and before a registration asks for its state, so the realm counts a queue from before it
// exists.
import type { EventQueues } from './queues.js';

/** A user's queues on one side: none, some, or some registered with all_public_streams. */
export type Holding = 'none' | 'queue' | 'all-public';

/** The users one side told about. */
export class HolderSet {
  readonly users = new Set<number>();
  readonly allPublic = new Set<number>();

  set(userId: number, holding: Holding): void {
    if (holding === 'none') this.users.delete(userId);
    else this.users.add(userId);
    if (holding === 'all-public') this.allPublic.add(userId);
    else this.allPublic.delete(userId);
  }

  /** What a report told: each user's holding now. */
  tell(users: readonly (readonly [userId: number, holding: Holding])[]): void {
    for (const [userId, holding] of users) this.set(userId, holding);
  }
}

/** The users of whom any of these sides told of an all_public_streams queue, each once. */
export function allPublicOf(sides: Iterable<HolderSet>): Set<number> {
  const users = new Set<number>();
  for (const side of sides) for (const userId of side.allPublic) users.add(userId);
  return users;
}

/** The user's holding among these queues, a registration under way counted as the queue it opens. */
export function holdingOf(queues: EventQueues, realmId: number, userId: number): Holding {
  if (queues.hasAllPublicStreams(realmId, userId) || queues.isRegistering(realmId, userId, true)) return 'all-public';
  return queues.hasQueue(realmId, userId) || queues.isRegistering(realmId, userId) ? 'queue' : 'none';
}

/** Every holder's holding among the realm's queues (what a realm told anew hears). */
export function allHoldings(queues: EventQueues, realmId: number): [userId: number, holding: Holding][] {
  return queues.holders(realmId).map((userId) => [userId, holdingOf(queues, realmId, userId)]);
}
