// Commands between nodes: a realm's owner answers `parley.realm.<id>.cmd` with its actor; any other
// node asks through NATS, as plain msgpack. What a node asks of one realm within a turn of its event
// loop goes as one NATS message (each request `[index, name, userId, input]`, one after another),
// with a reply subject in the node's inbox; the owner answers those of a batch that settle within
// one of its turns as one message (`[index, reply]` each). nats-server's cost follows the count of
// its messages, not their bytes. A request nobody listens to (the realm is moving to another node)
// is tried again until a deadline. An unanswered read is tried again too (a request that reached an
// owner as it died is lost); an unanswered write is not, since it may have run, and the client gets
// 503 to retry.
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { Packr } from 'msgpackr';
import { errors } from '../errors.js';
import { commands, type CommandName, type InputOf, type OutputOf } from '../realm/commands/index.js';
import type { RealmHandle } from '../realm/handle.js';
import { outputOf, replyTo, type CommandRequest, type Reply, type RequestOf } from '../realm/replies.js';
import { subjects, type Cluster } from './connection.js';
import { NO_RESPONDERS } from './inbox.js';

const codec = new Packr({ useRecords: false, structuredClone: true });

/** How long a request may wait for the realm's owner (one taking the realm over included). */
const REQUEST_DEADLINE_MS = 10_000;
const RETRY_MS = 100;
/** How long one attempt of a read waits before it is sent again. */
const READ_ATTEMPT_MS = 3_000;
/** NATS's default largest message, should the server not say its own. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

type Numbered<T> = [index: number, item: T];

/** Why an attempt got no answer: nobody serves the realm's commands (its owner is changing). */
class NoResponders extends Error {}
/** Why an attempt got no answer: none came in time. */
class NoAnswer extends Error {}

/** NATS messages gathered within a turn of the event loop, by subject, sent once it ends: each as
 * few messages as the connection's largest message allows (an item too big alone fails alone). */
class Gathered<Item> {
  private readonly waiting = new Map<string, { items: Item[]; bytes: Uint8Array[] }>();

  constructor(
    private readonly nc: NatsConnection,
    /** Sends one message of `items` (publishes `data`); told of a failure to publish it. */
    private readonly send: (subject: string, data: Uint8Array, items: Item[]) => void,
    private readonly failed: (items: Item[], error: Error) => void,
  ) {}

  add(subject: string, bytes: Uint8Array, item: Item): void {
    if (this.waiting.size === 0) setImmediate(() => this.flush());
    let batch = this.waiting.get(subject);
    if (!batch) this.waiting.set(subject, (batch = { items: [], bytes: [] }));
    batch.items.push(item);
    batch.bytes.push(bytes);
  }

  private flush(): void {
    const limit = this.nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
    for (const [subject, { items, bytes }] of this.waiting) {
      for (let start = 0; start < items.length; ) {
        let end = start + 1;
        let size = bytes[start]!.length;
        while (end < items.length && size + bytes[end]!.length <= limit) size += bytes[end++]!.length;
        const part = items.slice(start, end);
        try {
          this.send(subject, end - start === 1 ? bytes[start]! : Buffer.concat(bytes.slice(start, end), size), part);
        } catch (error) {
          this.failed(part, error instanceof Error ? error : new Error(String(error)));
        }
        start = end;
      }
    }
    this.waiting.clear();
  }
}

/** Answers the realm's commands from other nodes with `handle` (the local actor). */
export function serveCommands(cluster: Cluster, realmId: number, handle: RealmHandle): Subscription {
  // A reply that cannot be sent is dropped: the asking node's attempt times out, as if lost.
  const replies = new Gathered<undefined>(
    cluster.nc,
    (to, data) => cluster.nc.publish(to, data),
    () => undefined,
  );
  return cluster.nc.subscribe(subjects.commands(realmId), {
    callback: (error, message) => {
      if (error || !message.reply) return;
      const to = message.reply;
      let requests: Numbered<CommandRequest>[];
      try {
        requests = (codec.unpackMultiple(message.data) as [number, ...CommandRequest][]).map(([index, ...request]) => [index, request as CommandRequest]);
      } catch {
        return;
      }
      for (const [index, request] of requests) void replyTo(handle, request).then((reply) => replies.add(to, codec.pack([index, reply] satisfies Numbered<Reply>), undefined));
    },
  });
}

/** One attempt of a request, until answered or given up. */
interface Attempt {
  /** Tells it apart from the other attempts of its message. */
  index: number;
  resolve(reply: Reply): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  settled: boolean;
  /** The message it went in: its attempts not settled yet, and its reply subject's closing. */
  sent?: { left: number; close(): void };
}

/** This node's requests to realms owned elsewhere, sent as one message per realm and turn. */
export class CommandSender {
  private readonly requests: Gathered<Attempt>;
  private count = 0;

  constructor(private readonly cluster: Cluster) {
    this.requests = new Gathered(
      cluster.nc,
      (subject, data, attempts) => this.send(subject, data, attempts),
      (attempts, error) => {
        for (const attempt of attempts) this.settle(attempt)?.reject(error);
      },
    );
  }

  /** One attempt of a request of the realm's owner: its reply; rejects NoResponders, or NoAnswer
   * after `timeoutMs`. */
  attempt(realmId: number, request: CommandRequest, timeoutMs: number): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const index = (this.count = (this.count + 1) % 0x1_0000_0000);
      const attempt: Attempt = { index, resolve, reject, settled: false, timer: setTimeout(() => this.settle(attempt)?.reject(new NoAnswer()), timeoutMs) };
      this.requests.add(subjects.commands(realmId), codec.pack([index, ...request]), attempt);
    });
  }

  /** Publishes a message of attempts with a reply subject of its own, where their answers come. */
  private send(subject: string, data: Uint8Array, attempts: Attempt[]): void {
    const byIndex = new Map(attempts.map((attempt) => [attempt.index, attempt]));
    const answers = this.cluster.inbox.open((message) => this.answer(message, byIndex));
    const sent = { left: attempts.length, close: answers.close };
    for (const attempt of attempts) attempt.sent = sent;
    // Given up meanwhile (a deadline shorter than a turn): still sent, as the owner may be asked
    // only the whole message; its answer will find it settled.
    for (const attempt of attempts) if (attempt.settled) sent.left--;
    if (sent.left === 0) answers.close();
    this.cluster.nc.publish(subject, data, { reply: answers.subject });
  }

  /** Settles the attempts a message answers: each reply's, or all that are left when nobody took
   * the request (NATS's no-responders). */
  private answer(message: Msg, byIndex: Map<number, Attempt>): void {
    if ((message.headers?.code ?? 0) === NO_RESPONDERS) {
      for (const attempt of byIndex.values()) this.settle(attempt)?.reject(new NoResponders());
      return;
    }
    for (const [index, reply] of codec.unpackMultiple(message.data) as Numbered<Reply>[]) {
      const attempt = byIndex.get(index);
      if (attempt) this.settle(attempt)?.resolve(reply);
    }
  }

  /** Marks an attempt settled, once: answers it, unless it was settled before. */
  private settle(attempt: Attempt): Attempt | undefined {
    if (attempt.settled) return undefined;
    attempt.settled = true;
    clearTimeout(attempt.timer);
    if (attempt.sent && --attempt.sent.left === 0) attempt.sent.close();
    return attempt;
  }
}

/** A realm owned by another node. */
export class RemoteRealm implements RealmHandle {
  constructor(
    private readonly sender: CommandSender,
    readonly realm: { id: number; subdomain: string },
    /** The realm's actor, should this node have taken the realm meanwhile (a node does not hear its
     * own requests: its connection has no echo). */
    private readonly local: () => RealmHandle | undefined = () => undefined,
  ) {}

  /** Over NATS, always a promise. */
  answer<N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): Promise<OutputOf<N>> {
    return this.ask(name, userId, input);
  }

  async ask<N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): Promise<OutputOf<N>> {
    const deadline = performance.now() + REQUEST_DEADLINE_MS;
    const request = [name, userId, input] satisfies RequestOf<N> as CommandRequest;
    const read = commands[name].mode !== 'write';
    for (;;) {
      const here = this.local();
      if (here) return here.ask(name, userId, input);
      let reply: Reply;
      const remaining = deadline - performance.now();
      try {
        reply = await this.sender.attempt(this.realm.id, request, Math.max(1, read ? Math.min(READ_ATTEMPT_MS, remaining) : remaining));
      } catch (error) {
        const again = error instanceof NoResponders || (read && error instanceof NoAnswer);
        if (again && performance.now() + RETRY_MS < deadline) {
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
          continue;
        }
        throw errors.realmMoved();
      }
      return outputOf<N>(reply);
    }
  }
}
