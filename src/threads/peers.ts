// The other fronts of this process, as a front reaches them. A queue's ID names the front that
// holds it (events/queues.ts); a client's connections may land on any front, so a long-poll or a
// deletion of a queue another front holds is asked of that front over a port of their own, and
// answered as GET /events answers (the JSON fields, or the API error it was refused with). A client
// that goes away has the other front stop waiting. The event WebSocket attaches to such a queue
// through the same port (peerStreams.ts). What a front tells another goes in batches, in order
// (batchedPort.ts): a message to a channel whose readers' sockets landed on another front than their
// queues is one post a turn to that front (or one every 64 messages), not one a socket, each waking
// it and copied alone.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { ApiError } from '../errors.js';
import { crossed } from '../events/jsonText.js';
import type { EventQueue } from '../events/queue.js';
import { frontOf, type EventQueues } from '../events/queues.js';
import type { Logger } from '../ops/log.js';
import type { JsonFields } from '../realm/jsonFields.js';
import { errorReply, jsonFieldsOf, type Reply } from '../realm/replies.js';
import { BatchedPort, type Poster } from './batchedPort.js';
import { PeerConsumer, type AttachRequest, type RemoteReader, type StreamLink, type StreamMessage } from './peerStreams.js';

/** What a front may be asked about a queue it holds, for the queue's user. */
export type QueueRequest =
  | { kind: 'read'; realmId: number; userId: number; queueId: string; lastEventId: number; dontBlock: boolean }
  | { kind: 'delete'; realmId: number; userId: number; queueId: string };

export type PeerMessage = { kind: 'ask'; id: number; request: QueueRequest } | { kind: 'cancel'; id: number } | { kind: 'answer'; id: number; reply: Reply } | StreamMessage;

/** A post between two fronts: messages in order, in the sender's session of their link. */
export interface PeerBatch {
  session: number;
  messages: PeerMessage[];
}

/** The most messages a batch to another front holds before it goes, without waiting for the end
 * of the turn (the other front starts on the first sockets while this one serves the rest). */
const MESSAGES_PER_BATCH = 64;

/** A front's link to another: its session, a post in it, and what waits to go. */
interface Link {
  session: number;
  inSession: Poster;
  outbox: BatchedPort<PeerMessage>;
}

/** Answers a request about a queue this front holds. */
export type QueueAnswerer = (request: QueueRequest, signal: () => AbortSignal) => Promise<JsonFields>;

/** A port between each two of `count` fronts: each front's ports, by the other's index. */
export function peerPorts(count: number): Map<number, MessagePort>[] {
  const ports = Array.from({ length: count }, () => new Map<number, MessagePort>());
  for (let a = 0; a < count; a++) {
    for (let b = a + 1; b < count; b++) {
      const { port1, port2 } = new MessageChannel();
      ports[a]!.set(b, port1);
      ports[b]!.set(a, port2);
    }
  }
  return ports;
}

export class FrontPeers {
  private nextId = 0;
  /** Requests asked of other fronts, by ID: the front asked, and the answer's resolver. */
  private readonly asked = new Map<number, { front: number; resolve: (reply: Reply) => void }>();
  /** Requests other fronts asked here, by front and ID: what stops each waiting. */
  private readonly serving = new Map<string, AbortController>();
  /** Sockets here reading queues other fronts hold, by stream ID. */
  private readonly readers = new Map<number, { front: number; reader: RemoteReader }>();
  /** Sockets elsewhere reading queues held here, by front and stream ID. */
  private readonly consumers = new Map<string, PeerConsumer>();
  /** The link to each other front, by its index: what waits to go there, and the link's session
   * (both sides start at 0; a front that cannot read a batch from the other starts a new one). */
  private readonly links = new Map<number, Link>();

  constructor(
    /** This front's place among the fronts. */
    private readonly index: number,
    /** How many fronts there are. */
    private readonly count: number,
    /** The ports to the other fronts, by their index. */
    private readonly ports: ReadonlyMap<number, MessagePort>,
    private readonly answer: QueueAnswerer,
    /** The queues this front holds. */
    private readonly queues: EventQueues,
    private readonly log: Logger,
  ) {
    for (const [front, port] of ports) {
      const inSession: Poster = { postMessage: (messages: PeerMessage[]) => port.postMessage({ session: link.session, messages } satisfies PeerBatch) };
      const link: Link = { session: 0, inSession, outbox: new BatchedPort(inSession, MESSAGES_PER_BATCH, (message, error) => this.refused(front, message, error)) };
      this.links.set(front, link);
      port.on('message', ({ session, messages }: PeerBatch) => {
        // Sent before that front heard this one start over: of what was forgotten.
        if (session < link.session) return;
        if (session > link.session) this.startOver(front, session);
        for (const message of messages) this.receive(front, message);
      });
      // A front gone (its port closed) answers nothing more: everything between the two ends.
      port.on('close', () => this.forget(front));
      // A batch from it that cannot be read here (an event nested deeper than this thread's stack
      // takes, where the other's is larger: a bug) may have held anything it told this front — an
      // answer, a stream's events, its own requests and its sockets' attaches, acknowledgements and
      // releases. So the two start over, on both sides: this front forgets everything between them
      // and tells that front, which does the same. What waited fails, and the sockets reading the
      // other's queues close as at a stop (their clients connect again, and the queues still hold
      // what they did not acknowledge).
      port.on('messageerror', (error) => {
        this.log.error({ err: error, front }, 'a batch from another front could not be read: the two fronts start over');
        this.startOver(front, link.session + 1);
        link.inSession.postMessage([]);
      });
    }
  }

  /** The front that holds a queue, when it is another: the one its ID names, or the main front for
   * a queue of a front there no longer is (the realm thread gave it the queues such a front kept). */
  holder(queueId: string): number | undefined {
    const named = frontOf(queueId);
    const front = named < this.count ? named : 0;
    return front === this.index ? undefined : front;
  }

  /** Asks the front that holds a queue; aborting `signal` has it stop waiting. */
  async ask(front: number, request: QueueRequest, signal: AbortSignal): Promise<JsonFields> {
    const id = ++this.nextId;
    const onAbort = () => this.post(front, { kind: 'cancel', id });
    const reply = await new Promise<Reply>((resolve) => {
      this.asked.set(id, { front, resolve });
      this.post(front, { kind: 'ask', id, request });
      // Gone already (while its credentials were checked): the other front is told at once.
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    signal.removeEventListener('abort', onAbort);
    return jsonFieldsOf(reply);
  }

  /** Attaches a socket here to a queue the front `front` holds. */
  attach(front: number, request: AttachRequest, reader: RemoteReader): StreamLink {
    const id = ++this.nextId;
    this.readers.set(id, { front, reader });
    this.post(front, { kind: 'attach', id, request });
    return {
      acknowledge: (lastEventId) => this.post(front, { kind: 'ack', id, lastEventId }),
      release: () => {
        if (this.readers.delete(id)) this.post(front, { kind: 'release', id });
      },
    };
  }

  private post(front: number, message: PeerMessage): void {
    this.links.get(front)!.outbox.post(message);
  }

  /** A message to `front` that could not be copied, logged: a stream's events (an event nested
   * deeper than the copy goes, a bug) close the socket there as at a stop — its client connects
   * again, and the queue here still holds what it did not acknowledge. (The other messages are
   * numbers and strings.) */
  private refused(front: number, message: PeerMessage, error: unknown): void {
    this.log.error({ err: error, front, kind: message.kind }, 'a message to another front could not be copied');
    if (message.kind === 'events') this.consumers.get(`${front}:${message.id}`)?.detach('shutdown');
  }

  /** A new session with `front`: what was under way between the two is forgotten, and so is what
   * waits to go to it (it belongs to what was forgotten); what the other sent in the session
   * before is dropped on arrival. */
  private startOver(front: number, session: number): void {
    const link = this.links.get(front)!;
    link.session = session;
    link.outbox.clear();
    this.forget(front);
  }

  /** Ends everything between this front and `front`: what this front waits on from it fails (its
   * requests, the sockets reading its queues), and what it asked here stops (its waits, its
   * sockets' hold on the queues here). */
  private forget(front: number): void {
    for (const [id, asked] of this.asked) if (asked.front === front) this.answered(id, { error: null });
    for (const [id, stream] of this.readers) if (stream.front === front) this.readerOf(id)?.detached('shutdown');
    for (const [key, controller] of this.serving) if (key.startsWith(`${front}:`)) controller.abort();
    for (const [key, consumer] of this.consumers) if (key.startsWith(`${front}:`)) consumer.release();
  }

  /** The reader of a stream, forgotten if the stream ended. */
  private readerOf(id: number, ending = true): RemoteReader | undefined {
    const reader = this.readers.get(id)?.reader;
    if (ending) this.readers.delete(id);
    return reader;
  }

  private answered(id: number, reply: Reply): void {
    this.asked.get(id)?.resolve(reply);
    this.asked.delete(id);
  }

  /** A socket on another front attaches to a queue held here: its consumer forwards the events
   * after the last the socket has, as the queue gets them. */
  private serveStream(front: number, id: number, request: AttachRequest): void {
    const post = (message: StreamMessage) => this.post(front, message);
    // Stopping: the socket is closed as one front closes its own then.
    if (this.queues.closing) return post({ kind: 'detach', id, reason: 'shutdown' });
    let queue: EventQueue;
    try {
      queue = this.queues.get(request.queueId, request.realmId, request.userId);
    } catch (error) {
      return post({ kind: 'refused', id, reply: errorReply(error) });
    }
    const key = `${front}:${id}`;
    queue.acknowledge(request.lastEventId);
    const consumer = new PeerConsumer(queue, request.lastEventId, post, id, () => this.consumers.delete(key));
    this.consumers.set(key, consumer);
    queue.attach(consumer);
    post({ kind: 'attached', id, queueId: queue.id, lastEventId: queue.lastEventId });
    consumer.notify();
  }

  /** Stops listening to the other fronts, once what waits to go to them went. */
  close(): void {
    for (const { outbox } of this.links.values()) outbox.flush();
    for (const port of this.ports.values()) port.close();
  }

  private receive(front: number, message: PeerMessage): void {
    switch (message.kind) {
      case 'answer':
        this.answered(message.id, message.reply);
        return;
      case 'cancel':
        this.serving.get(`${front}:${message.id}`)?.abort();
        return;
      case 'attach':
        return this.serveStream(front, message.id, message.request);
      case 'attached':
        return this.readerOf(message.id, false)?.attached(message.queueId, message.lastEventId);
      case 'refused':
        return this.readerOf(message.id)?.refused(message.reply);
      case 'events':
        for (const { event } of message.events) crossed(event);
        return this.readerOf(message.id, false)?.events(message.events);
      case 'detach':
        return this.readerOf(message.id)?.detached(message.reason);
      case 'ack':
        return this.consumers.get(`${front}:${message.id}`)?.queue.acknowledge(message.lastEventId);
      case 'release':
        return this.consumers.get(`${front}:${message.id}`)?.release();
      case 'ask': {
        const key = `${front}:${message.id}`;
        const controller = new AbortController();
        this.serving.set(key, controller);
        void this.answer(message.request, () => controller.signal)
          .then(
            (fields): Reply => ({ fields: fields.parts }),
            (error: unknown) => {
              // A refusal goes back as it is; anything else is a bug, logged here, where it happened.
              if (!(error instanceof ApiError)) this.log.error({ err: error, request: message.request.kind }, 'a request from another front failed');
              return errorReply(error);
            },
          )
          .then((reply) => {
            this.serving.delete(key);
            this.post(front, { kind: 'answer', id: message.id, reply });
          });
        return;
      }
    }
  }
}
