// The owner's side of commands between nodes: a realm's owner answers `parley.realm.<id>.cmd` with
// its actor, from the moment it takes the realm's lease (what other nodes ask while it catches up
// with the log waits for it, rather than reach only the owner before, should that one be paused,
// not dead). The answers to one message that settle within a turn go as one message, after the
// realm's emissions of that turn (an answer's state may include them).
import type { Principal } from '../auth/basic.js';
import { errors } from '../errors.js';
import type { RealmHandle } from '../realm/handle.js';
import { errorReply, replyTo, requestOf, type Reply } from '../realm/replies.js';
import { codec, framed, isAsked, type Answered, type Asked, type Vouch } from './commandWire.js';
import { subjects, type Cluster } from './connection.js';
import { Gathered, maxPayload } from './gathered.js';
import type { TakenLease } from './leases.js';
import { samePrincipal } from './principals.js';

/** How much sooner than its sender's wait runs out a request must start: the wait counts from
 * before it was sent, the owner's from when it came. */
const START_MARGIN_MS = 250;

/** A realm's commands served to other nodes. `drain` takes no more, and resolves once every
 * request taken has started on the realm: one whose kept credentials are checked again first
 * starts only after that check, and the realm's `idle` that follows a drain must cover it (else
 * the realm, retired meanwhile, would refuse a write its sender is never told was not run). */
export interface CommandService {
  drain(): Promise<void>;
  unsubscribe(): void;
}

/** Answers the realm's commands from other nodes as the owner under `lease` (its epoch, and whether
 * the holder before gave it up), with `serving`: the local actor, once active (a promise that
 * rejects should the node not take the realm after all: what was asked meanwhile is answered as
 * not run). Answers go behind `emissions` (the event bus's batches). */
export function serveCommands(cluster: Cluster, realmId: number, lease: TakenLease, serving: RealmHandle | Promise<RealmHandle>, emissions: { flush(): void }): CommandService {
  // A reply that cannot be sent is dropped: the asking node's attempt times out, as if lost.
  const replies = new Gathered<undefined>(
    cluster.nc,
    (to, data) => cluster.nc.publish(to, data),
    () => undefined,
    { behind: emissions },
  );
  /** The messages taken whose requests have not all started yet. */
  const starting = new Set<Promise<void>>();
  const subscription = cluster.nc.subscribe(subjects.commands(realmId), {
    callback: (error, message) => {
      if (error || !message.reply) return;
      const to = message.reply;
      const received = performance.now();
      let requests: Asked[];
      try {
        requests = (codec.unpackMultiple(message.data) as unknown[]).filter(isAsked);
      } catch {
        return;
      }
      const tell = (answered: Answered): void => {
        for (const bytes of framed(answered, maxPayload(cluster.nc))) replies.add(to, bytes, undefined);
      };
      const started = answerInOrder(serving, { ...lease, received }, requests, tell);
      starting.add(started);
      void started.finally(() => starting.delete(started));
    },
  });
  return {
    drain: async () => {
      await subscription.drain();
      await Promise.all(starting);
    },
    unsubscribe: () => subscription.unsubscribe(),
  };
}

/** Starts each request sent to this owner (its epoch, or none named) in the order asked, each
 * once its kept credentials (if any) are checked again, and tells each answer as it settles.
 * Nobody else runs what was sent to this owner, nor, once the owner before gave the lease up, what
 * was sent to that one: such a request that is not run here (the node does not take the realm after
 * all) is answered `not run`, to be sent again. One sent to an earlier owner that did not give the
 * lease up is that one's (it may still run it, unaware): `sent elsewhere`. One sent to a later
 * owner gets no answer from this one, and one whose sender has given up on it is not run. */
async function answerInOrder(serving: RealmHandle | Promise<RealmHandle>, at: { epoch: number; released: boolean; received: number }, requests: Asked[], tell: (answered: Answered) => void): Promise<void> {
  const answerable = requests.filter(([index, , , epoch]) => {
    if (epoch === null || epoch === at.epoch) return true;
    if (epoch < at.epoch) tell([index, at.released && epoch === at.epoch - 1 ? 'not run' : 'sent elsewhere', false, at.epoch]);
    return false;
  });
  let handle: RealmHandle;
  try {
    handle = await serving;
  } catch {
    for (const [index, , , epoch] of answerable) if (epoch === at.epoch) tell([index, 'not run', false, at.epoch]);
    return;
  }
  for (const [index, request, vouch, , waitsMs] of answerable) {
    if (performance.now() - at.received > waitsMs - START_MARGIN_MS) continue;
    let refused: Reply | undefined;
    try {
      refused = vouch ? await recheck(handle, vouch) : undefined;
    } catch {
      refused = errorReply(undefined);
    }
    if (refused) tell([index, refused, true, at.epoch]);
    else void replyTo(handle, request).then((reply) => tell([index, reply, false, at.epoch]));
  }
}

/** Undefined if kept credentials still name the principal they named; else the reply that says
 * why not: their refusal now, or (the same user, changed) 503, to be asked again. */
export async function recheck(handle: RealmHandle, [[name, input], principal]: Vouch): Promise<Reply | undefined> {
  const checked = await replyTo(handle, requestOf(name, null, input));
  if (!('ok' in checked)) return checked;
  return samePrincipal(checked.ok as Principal, principal) ? undefined : errorReply(errors.realmMoved());
}
