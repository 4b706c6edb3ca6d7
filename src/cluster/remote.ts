// Commands between nodes: a realm's owner answers `parley.realm.<id>.cmd` with its actor; any other
// node asks through NATS, as plain msgpack. What a node asks of one realm within a turn of its event
// loop goes as one NATS message (each request `[index, name, userId, input]`, one after another),
// with a reply subject in the node's inbox; the owner answers those of a batch that settle within
// one of its turns as one message (`[index, reply]` each). nats-server's cost follows the count of
// its messages, not their bytes. A request on credentials the gateway kept (principals.ts) carries
// them, and the owner runs it only if they still name the same principal. A request nobody listens to (the realm is moving to another node)
// is tried again until a deadline. An unanswered read is tried again too (a request that reached an
// owner as it died is lost); an unanswered write is not, since it may have run, and the client gets
// 503 to retry.
import type { Msg, Subscription } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { errors } from '../errors.js';
import { commands, type CommandName, type InputOf, type OutputOf } from '../realm/commands/index.js';
import type { RealmHandle } from '../realm/handle.js';
import { errorReply, outputOf, replyTo, type CommandRequest, type Reply, type RequestOf } from '../realm/replies.js';
import type { Principal } from '../auth/basic.js';
import { subjects, type Cluster } from './connection.js';
import { Gathered, maxPayload } from './gathered.js';
import { NO_RESPONDERS } from './inbox.js';
import { samePrincipal, type Credentials, type KeptPrincipals } from './principals.js';

const codec = new Packr({ useRecords: false, structuredClone: true });

/** How long a request may wait for the realm's owner (one taking the realm over included). */
const REQUEST_DEADLINE_MS = 10_000;
const RETRY_MS = 100;
/** How long one attempt of a read waits before it is sent again. */
const READ_ATTEMPT_MS = 3_000;
/** Room left in a NATS message for the framing of an answer's part. */
const PART_FRAMING_BYTES = 64;

/** Kept credentials a request was admitted on, and the principal they named then. */
type Vouch = [credentials: Credentials, principal: Principal];
/** A request as it travels, numbered within its message. */
type Asked = [index: number, request: CommandRequest, vouch: Vouch | null];
/** An answer as it travels: `unvouched` when the request's kept credentials no longer name its
 * principal (the reply is then why: their refusal now, or 503 to ask again). */
type Answered = [index: number, reply: Reply, unvouched: boolean];
/** One part of an answer too big for one NATS message (a register state, a long fetch): the
 * answer's msgpack bytes, cut. */
type AnswerPart = [index: number, part: number, parts: number, bytes: Uint8Array];

/** Why an attempt got no answer: nobody serves the realm's commands (its owner is changing). */
class NoResponders extends Error {}
/** Why an attempt got no answer: none came in time. */
class NoAnswer extends Error {}

/** Answers the realm's commands from other nodes with `handle`, the local actor: from the moment
 * this node takes the realm's lease, so that what other nodes ask while it catches up with the
 * log waits for it (rather than reach only the owner before, should that one be paused, not dead);
 * should the node not serve the realm after all (`handle` rejects), they get no answer. */
export function serveCommands(cluster: Cluster, realmId: number, handle: RealmHandle | Promise<RealmHandle>): Subscription {
  // A reply that cannot be sent is dropped: the asking node's attempt times out, as if lost.
  const replies = new Gathered<undefined>(
    cluster.nc,
    (to, data) => cluster.nc.publish(to, data),
    () => undefined,
  );
  const tell = (to: string, answered: Answered): void => {
    for (const bytes of framed(answered, maxPayload(cluster.nc) - PART_FRAMING_BYTES)) replies.add(to, bytes, undefined);
  };
  return cluster.nc.subscribe(subjects.commands(realmId), {
    callback: (error, message) => {
      if (error || !message.reply) return;
      const to = message.reply;
      let requests: Asked[];
      try {
        requests = (codec.unpackMultiple(message.data) as unknown[]).filter((request): request is Asked => Array.isArray(request) && request.length === 3);
      } catch {
        return;
      }
      void answerInOrder(handle, requests, (answered) => tell(to, answered));
    },
  });
}

/** An answer as it travels: one value, or parts of at most `room` bytes each. One that cannot be
 * encoded travels as a failure (the request's caller learns only that it failed). */
function framed(answered: Answered, room: number): Uint8Array[] {
  let bytes: Uint8Array;
  try {
    bytes = codec.pack(answered);
  } catch {
    bytes = codec.pack([answered[0], errorReply(undefined), answered[2]] satisfies Answered);
  }
  if (bytes.length <= room) return [bytes];
  const parts = Math.ceil(bytes.length / room);
  return Array.from({ length: parts }, (_, part) => codec.pack([answered[0], part, parts, bytes.subarray(part * room, (part + 1) * room)] satisfies AnswerPart));
}

/** Starts each request in the order asked, each once its kept credentials (if any) are checked
 * again, and tells each answer as it settles. */
async function answerInOrder(serving: RealmHandle | Promise<RealmHandle>, requests: Asked[], tell: (answered: Answered) => void): Promise<void> {
  let handle: RealmHandle;
  try {
    handle = await serving;
  } catch {
    return;
  }
  for (const [index, request, vouch] of requests) {
    const refused = vouch ? await recheck(handle, vouch) : undefined;
    if (refused) tell([index, refused, true]);
    else void replyTo(handle, request).then((reply) => tell([index, reply, false]));
  }
}

/** Undefined if kept credentials still name the principal they named; else the reply that says
 * why not: their refusal now, or (the same user, changed) 503, to be asked again. */
async function recheck(handle: RealmHandle, [[name, input], principal]: Vouch): Promise<Reply | undefined> {
  const checked = await replyTo(handle, [name, null, input] as CommandRequest);
  if (!('ok' in checked)) return checked;
  return samePrincipal(checked.ok as Principal, principal) ? undefined : errorReply(errors.realmMoved());
}

/** One attempt of a request, until answered or given up. */
interface Attempt {
  /** Tells it apart from the other attempts of its message. */
  index: number;
  resolve(answer: { reply: Reply; unvouched: boolean }): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  settled: boolean;
  /** The message it went in: its attempts not settled yet, and its reply subject's closing. */
  sent?: { left: number; close(): void };
  realmId: number;
  /** The lease epoch of the owner it was sent to, as this node knew it (undefined: not known). */
  epoch: number | undefined;
  /** The parts of its answer come so far, when it comes in parts. */
  parts?: Uint8Array[];
}

/** This node's requests to realms owned elsewhere, sent as one message per realm and turn. */
export class CommandSender {
  private readonly requests: Gathered<Attempt>;
  /** The attempts not settled yet, by realm. */
  private readonly unsettled = new Map<number, Set<Attempt>>();
  private count = 0;

  constructor(
    private readonly cluster: Cluster,
    /** The lease epoch of a realm's owner, as this node knows it (none: owners are not followed). */
    private readonly epochOf: (realmId: number) => number | undefined = () => undefined,
  ) {
    this.requests = new Gathered(
      cluster.nc,
      (subject, data, attempts) => this.send(subject, data, attempts),
      (attempts, error) => {
        for (const attempt of attempts) this.settle(attempt)?.reject(error);
      },
      // One given up before its turn ended (a deadline shorter than a turn) is not sent.
      (attempt) => !attempt.settled,
    );
  }

  /** One attempt of a request of the realm's owner: its reply; rejects NoResponders, or NoAnswer
   * after `timeoutMs`. */
  attempt(realmId: number, request: CommandRequest, vouch: Vouch | undefined, timeoutMs: number): Promise<{ reply: Reply; unvouched: boolean }> {
    return new Promise((resolve, reject) => {
      const index = (this.count = (this.count + 1) % 0x1_0000_0000);
      const attempt: Attempt = { index, resolve, reject, settled: false, timer: setTimeout(() => this.settle(attempt)?.reject(new NoAnswer()), timeoutMs), realmId, epoch: this.epochOf(realmId) };
      let unsettled = this.unsettled.get(realmId);
      if (!unsettled) this.unsettled.set(realmId, (unsettled = new Set()));
      unsettled.add(attempt);
      this.requests.add(subjects.commands(realmId), codec.pack([index, request, vouch ?? null] satisfies Asked), attempt);
    });
  }

  /** A realm's lease went to another holder: the attempts sent to an owner before it get no
   * answer now, rather than at their deadline (that owner died, or was deposed and can append
   * nothing; the new one never heard of them). */
  ownerChanged(realmId: number): void {
    const epoch = this.epochOf(realmId);
    if (epoch === undefined) return;
    for (const attempt of this.unsettled.get(realmId) ?? []) if (attempt.epoch !== undefined && attempt.epoch < epoch) this.settle(attempt)?.reject(new NoAnswer());
  }

  /** Publishes a message of attempts with a reply subject of its own, where their answers come. */
  private send(subject: string, data: Uint8Array, attempts: Attempt[]): void {
    const byIndex = new Map(attempts.map((attempt) => [attempt.index, attempt]));
    const answers = this.cluster.inbox.open((message) => this.answer(message, byIndex));
    const sent = { left: attempts.length, close: answers.close };
    for (const attempt of attempts) attempt.sent = sent;
    this.cluster.nc.publish(subject, data, { reply: answers.subject });
  }

  /** Settles the attempts a message answers: each reply's, or all that are left when nobody took
   * the request (NATS's no-responders). */
  private answer(message: Msg, byIndex: Map<number, Attempt>): void {
    if ((message.headers?.code ?? 0) === NO_RESPONDERS) {
      for (const attempt of byIndex.values()) this.settle(attempt)?.reject(new NoResponders());
      return;
    }
    let answers: (Answered | AnswerPart)[];
    try {
      answers = (codec.unpackMultiple(message.data) as unknown[]).filter((answer): answer is Answered | AnswerPart => Array.isArray(answer) && (answer.length === 3 || answer.length === 4));
    } catch {
      // Unreadable: whatever it answered is lost, and those it may have answered learn it now.
      for (const attempt of byIndex.values()) this.settle(attempt)?.reject(new NoAnswer());
      return;
    }
    for (const answer of answers) {
      const attempt = byIndex.get(answer[0]);
      if (!attempt || attempt.settled) continue;
      const whole = answer.length === 3 ? answer : this.gather(attempt, answer);
      if (whole) this.settle(attempt)?.resolve({ reply: whole[1], unvouched: whole[2] });
    }
  }

  /** Keeps a part of an attempt's answer: the whole answer once every part came (a copy of each:
   * a message's bytes are not the reader's to keep). */
  private gather(attempt: Attempt, [, part, parts, bytes]: AnswerPart): Answered | undefined {
    attempt.parts ??= [];
    attempt.parts[part] = Buffer.from(bytes);
    if (attempt.parts.filter(Boolean).length < parts) return undefined;
    try {
      return codec.unpack(Buffer.concat(attempt.parts)) as Answered;
    } catch {
      this.settle(attempt)?.reject(new NoAnswer());
      return undefined;
    }
  }

  /** Marks an attempt settled, once: answers it, unless it was settled before. */
  private settle(attempt: Attempt): Attempt | undefined {
    if (attempt.settled) return undefined;
    attempt.settled = true;
    clearTimeout(attempt.timer);
    const unsettled = this.unsettled.get(attempt.realmId);
    unsettled?.delete(attempt);
    if (unsettled?.size === 0) this.unsettled.delete(attempt.realmId);
    if (attempt.sent && --attempt.sent.left === 0) attempt.sent.close();
    return attempt;
  }
}

/** The credentials a command takes, if it is one that checks them. */
function credentialsOf(name: CommandName, input: unknown): Credentials | undefined {
  if (name === 'auth.basic') return ['auth.basic', input as InputOf<'auth.basic'>];
  if (name === 'auth.apiKey') return ['auth.apiKey', input as InputOf<'auth.apiKey'>];
  return undefined;
}

/** A realm owned by another node, as one request asks it. */
export class RemoteRealm implements RealmHandle {
  /** The kept credentials this request was admitted on (its commands carry them). */
  private vouch: Vouch | undefined;

  constructor(
    private readonly sender: CommandSender,
    readonly realm: { id: number; subdomain: string },
    /** The realm's actor, should this node have taken the realm meanwhile (a node does not hear its
     * own requests: its connection has no echo). */
    private readonly local: () => RealmHandle | undefined = () => undefined,
    /** Credentials this node accepted before (none kept: each request asks them of the owner). */
    private readonly principals?: KeptPrincipals,
  ) {}

  /** Credentials kept here at once; every other command over NATS, a promise. */
  answer<N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): OutputOf<N> | Promise<OutputOf<N>> {
    const credentials = credentialsOf(name, input);
    if (!credentials || !this.principals) return this.ask(name, userId, input);
    const kept = this.principals.get(this.realm.id, credentials);
    if (kept) {
      this.vouch = [credentials, kept];
      return kept as OutputOf<N>;
    }
    return this.principals.check(this.realm.id, credentials, () => this.ask(name, userId, input) as Promise<Principal>) as Promise<OutputOf<N>>;
  }

  async ask<N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): Promise<OutputOf<N>> {
    const deadline = performance.now() + REQUEST_DEADLINE_MS;
    const request = [name, userId, input] satisfies RequestOf<N> as CommandRequest;
    const read = commands[name].mode !== 'write';
    for (;;) {
      const vouch = this.vouch;
      const here = this.local();
      if (here) {
        const refused = vouch && (await recheck(here, vouch));
        if (!refused) return here.ask(name, userId, input);
        this.unvouch(vouch);
        return outputOf<N>(refused);
      }
      let answer: { reply: Reply; unvouched: boolean };
      const remaining = deadline - performance.now();
      try {
        answer = await this.sender.attempt(this.realm.id, request, vouch, Math.max(1, read ? Math.min(READ_ATTEMPT_MS, remaining) : remaining));
      } catch (error) {
        const again = error instanceof NoResponders || (read && error instanceof NoAnswer);
        if (again && performance.now() + RETRY_MS < deadline) {
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
          continue;
        }
        throw errors.realmMoved();
      }
      if (answer.unvouched && vouch) this.unvouch(vouch);
      return outputOf<N>(answer.reply);
    }
  }

  /** The kept credentials no longer name the principal they did: forgotten here. */
  private unvouch(vouch: Vouch): void {
    this.principals?.drop(this.realm.id, vouch[0]);
    this.vouch = undefined;
  }
}
