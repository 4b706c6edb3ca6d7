// A gateway's side of commands between nodes: what a node asks of one realm within a turn of its
// event loop goes to the realm's owner as one NATS message on `parley.realm.<id>.cmd`, with a reply
// subject in the node's inbox (commandWire.ts has the format, commandServer.ts the owner's side).
// nats-server's cost follows the count of its messages, not their bytes. A request on credentials
// the gateway kept (principals.ts) carries them, and the owner runs it only if they still name the
// same principal. A request nobody listens to (the realm is moving to another node), or that the
// owner did not run, is sent again until a deadline. An unanswered read is sent again too (a
// request that reached an owner as it died is lost); an unanswered write is not, since it may have
// run, and the client gets 503 to retry. Once the realm's lease goes to another holder, what was
// sent to the owner before gets no answer at once rather than at its deadline.
import type { Msg } from '@nats-io/transport-node';
import type { Principal } from '../auth/basic.js';
import { errors } from '../errors.js';
import { commands, type CommandName, type InputOf, type OutputOf } from '../realm/commands/index.js';
import type { FieldsCommand, RealmHandle } from '../realm/handle.js';
import type { JsonFields } from '../realm/jsonFields.js';
import { fieldsRequest, jsonFieldsOf, outputOf, replyTo, requestOf, type CommandRequest, type Reply } from '../realm/replies.js';
import { recheck } from './commandServer.js';
import { codec, isAnswered, isPart, type AnswerPart, type Answered, type Asked, type Vouch } from './commandWire.js';
import { subjects, type Cluster } from './connection.js';
import { Gathered } from './gathered.js';
import { NO_RESPONDERS } from './inbox.js';
import type { Credentials, KeptPrincipals } from './principals.js';

/** How long a request may wait for the realm's owner (one taking the realm over included). */
const REQUEST_DEADLINE_MS = 10_000;
const RETRY_MS = 100;
/** How long one attempt of a read waits before it is sent again. */
const READ_ATTEMPT_MS = 3_000;

/** Why an attempt was not run and may be sent again: nobody serves the realm's commands (its
 * owner is changing), or its owner did not run it. */
class NotRun extends Error {}
/** Why an attempt got no answer: none came in time, or its owner is gone. */
class NoAnswer extends Error {}

/** What an attempt came back with: the reply, whether its kept credentials no longer name its
 * principal, and the lease epoch of the owner that answered (undefined: this node's own actor). */
interface Outcome {
  reply: Reply;
  unvouched: boolean;
  epoch: number | undefined;
}

/** One attempt of a request, until answered or given up. */
interface Attempt {
  /** Tells it apart from the other attempts of its message. */
  index: number;
  resolve(outcome: Outcome): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  settled: boolean;
  /** The message it went in: its attempts not settled yet, and its reply subject's closing. */
  sent?: { left: number; close(): void };
  realmId: number;
  /** The lease epoch of the owner it was sent to, as this node knew it (undefined: not known). */
  epoch: number | undefined;
  /** The parts of its answer come so far, when it comes in parts, by the epoch of the owner
   * sending them. */
  parts?: Map<number, Uint8Array[]>;
}

/** This node's requests to realms owned elsewhere, sent as one message per realm and turn. */
export class CommandSender {
  private readonly requests: Gathered<Attempt>;
  /** The attempts not settled yet, by realm. */
  private readonly unsettled = new Map<number, Set<Attempt>>();
  /** The latest owner epoch each realm's answers named (ahead of the lease table when its watch
   * lags). */
  private readonly answeredBy = new Map<number, number>();
  /** The epoch of each realm's lease last given up by its holder. */
  private readonly released = new Map<number, number>();
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
      { live: (attempt) => !attempt.settled },
    );
  }

  /** One attempt of a request of the realm's owner; rejects NotRun, or NoAnswer after `timeoutMs`. */
  attempt(realmId: number, request: CommandRequest, vouch: Vouch | undefined, timeoutMs: number): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      const index = (this.count = (this.count + 1) % 0x1_0000_0000);
      const epoch = this.ownerEpoch(realmId);
      const attempt: Attempt = { index, resolve, reject, settled: false, timer: setTimeout(() => this.settle(attempt)?.reject(new NoAnswer()), timeoutMs), realmId, epoch };
      let unsettled = this.unsettled.get(realmId);
      if (!unsettled) this.unsettled.set(realmId, (unsettled = new Set()));
      unsettled.add(attempt);
      this.requests.add(subjects.commands(realmId), codec.pack([index, request, vouch ?? null, epoch ?? null, timeoutMs] satisfies Asked), attempt);
    });
  }

  /** A realm's lease changed (`lease`: as the table now has it). Once it went to another holder,
   * the attempts sent to an owner before it get no answer now, rather than at their deadline (that
   * owner died, or was deposed and can append nothing; the new one does not run what was sent to
   * the one before). Once its holder gave it up (a drain: it stopped serving first, and what it
   * answered came before), what was sent to it was not run, and is sent again. */
  ownerChanged(realmId: number, lease?: { node: string; epoch: number }): void {
    if (lease?.node === '') this.released.set(realmId, lease.epoch);
    const epoch = this.ownerEpoch(realmId);
    if (epoch === undefined) return;
    const released = this.released.get(realmId);
    for (const attempt of this.unsettled.get(realmId) ?? []) {
      if (attempt.epoch === undefined) continue;
      // One not sent yet goes nowhere (Gathered drops it), and is sent again to the later owner.
      if (attempt.epoch === released || (attempt.epoch < epoch && !attempt.sent)) this.settle(attempt)?.reject(new NotRun());
      else if (attempt.epoch < epoch) this.settle(attempt)?.reject(new NoAnswer());
    }
  }

  /** This node serves the realm under `epoch` from now on: what it sent to that owner (itself,
   * which does not hear its own messages) was not run, and goes to its own actor instead. */
  servedHere(realmId: number, epoch: number): void {
    for (const attempt of this.unsettled.get(realmId) ?? []) if (attempt.epoch === epoch) this.settle(attempt)?.reject(new NotRun());
  }

  /** The epoch of the realm's owner, as the lease table and the answers so far tell. */
  private ownerEpoch(realmId: number): number | undefined {
    const table = this.epochOf(realmId);
    const answered = this.answeredBy.get(realmId);
    return table === undefined || answered === undefined ? (table ?? answered) : Math.max(table, answered);
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
      for (const attempt of byIndex.values()) this.settle(attempt)?.reject(new NotRun());
      return;
    }
    let answers: (Answered | AnswerPart)[];
    try {
      answers = (codec.unpackMultiple(message.data) as unknown[]).filter((answer) => isAnswered(answer) || isPart(answer));
    } catch {
      // Unreadable: whatever it answered is lost, and those it may have answered learn it now.
      for (const attempt of byIndex.values()) this.settle(attempt)?.reject(new NoAnswer());
      return;
    }
    for (const answer of answers) {
      const attempt = byIndex.get(answer[0]);
      if (!attempt || attempt.settled) continue;
      const whole = isPart(answer) ? this.gather(attempt, answer) : answer;
      if (!whole) continue;
      const [, reply, unvouched, epoch] = whole;
      if (epoch > (this.answeredBy.get(attempt.realmId) ?? 0)) this.answeredBy.set(attempt.realmId, epoch);
      if (reply === 'not run') this.settle(attempt)?.reject(new NotRun());
      // A later owner's word: what was sent to the one before fails as the lease's moving fails it.
      else if (reply === 'sent elsewhere') this.ownerChanged(attempt.realmId);
      else this.settle(attempt)?.resolve({ reply, unvouched, epoch });
    }
  }

  /** Keeps a part of an attempt's answer: the whole answer once every part came (a copy of each:
   * a message's bytes are not the reader's to keep). */
  private gather(attempt: Attempt, [, part, parts, bytes, epoch]: AnswerPart): Answered | undefined {
    attempt.parts ??= new Map();
    const come = attempt.parts.get(epoch) ?? [];
    attempt.parts.set(epoch, come);
    come[part] = Buffer.from(bytes);
    if (come.filter(Boolean).length < parts) return undefined;
    let whole: unknown;
    try {
      whole = codec.unpack(Buffer.concat(come));
    } catch {
      whole = undefined;
    }
    if (isAnswered(whole)) return whole;
    this.settle(attempt)?.reject(new NoAnswer());
    return undefined;
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
    return this.principals.check(this.realm.id, credentials, async () => {
      const { reply, epoch } = await this.request(requestOf(name, userId, input));
      return { principal: outputOf<N>(reply) as Principal, epoch };
    }) as Promise<OutputOf<N>>;
  }

  async ask<N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): Promise<OutputOf<N>> {
    return outputOf<N>((await this.request(requestOf(name, userId, input))).reply);
  }

  async askFields<N extends FieldsCommand>(name: N, userId: number | null, input: InputOf<N>): Promise<JsonFields> {
    return jsonFieldsOf((await this.request(fieldsRequest(name, userId, input))).reply);
  }

  /** The command's reply, from this node's actor should it have taken the realm meanwhile. */
  private async request(request: CommandRequest): Promise<Outcome> {
    const deadline = performance.now() + REQUEST_DEADLINE_MS;
    const read = commands[request[0]].mode !== 'write';
    for (;;) {
      const vouch = this.vouch;
      const here = this.local();
      if (here) {
        const refused = vouch && (await recheck(here, vouch));
        if (refused) this.unvouch(vouch);
        return { reply: refused || (await replyTo(here, request)), unvouched: Boolean(refused), epoch: undefined };
      }
      let outcome: Outcome;
      const remaining = deadline - performance.now();
      try {
        outcome = await this.sender.attempt(this.realm.id, request, vouch, Math.max(1, read ? Math.min(READ_ATTEMPT_MS, remaining) : remaining));
      } catch (error) {
        const again = error instanceof NotRun || (read && error instanceof NoAnswer);
        if (again && performance.now() + RETRY_MS < deadline) {
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
          continue;
        }
        throw errors.realmMoved();
      }
      if (outcome.unvouched && vouch) this.unvouch(vouch);
      return outcome;
    }
  }

  /** The kept credentials no longer name the principal they did: forgotten here. */
  private unvouch(vouch: Vouch): void {
    this.principals?.drop(this.realm.id, vouch[0]);
    this.vouch = undefined;
  }
}
