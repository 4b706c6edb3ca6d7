// The other fronts of this process, as a front reaches them. A queue's ID names the front that
// holds it (events/queues.ts); a client's connections may land on any front, so a long-poll or a
// deletion of a queue another front holds is asked of that front over a port of their own, and
// answered as GET /events answers (the JSON fields, or the API error it was refused with). A client
// that goes away has the other front stop waiting.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { ApiError } from '../errors.js';
import { frontOf } from '../events/queues.js';
import type { Logger } from '../ops/log.js';
import type { JsonFields } from '../realm/jsonFields.js';
import { errorReply, jsonFieldsOf, type Reply } from '../realm/replies.js';

/** What a front may be asked about a queue it holds, for the queue's user. */
export type QueueRequest =
  | { kind: 'read'; realmId: number; userId: number; queueId: string; lastEventId: number; dontBlock: boolean }
  | { kind: 'delete'; realmId: number; userId: number; queueId: string };

type PeerMessage = { kind: 'ask'; id: number; request: QueueRequest } | { kind: 'cancel'; id: number } | { kind: 'answer'; id: number; reply: Reply };

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

  constructor(
    /** This front's place among the fronts. */
    private readonly index: number,
    /** How many fronts there are. */
    private readonly count: number,
    /** The ports to the other fronts, by their index. */
    private readonly ports: ReadonlyMap<number, MessagePort>,
    answer: QueueAnswerer,
    private readonly log: Logger,
  ) {
    for (const [front, port] of ports) {
      port.on('message', (message: PeerMessage) => this.receive(front, port, message, answer));
      // A front gone (its port closed) answers nothing more: what was asked of it fails.
      port.on('close', () => {
        for (const [id, asked] of this.asked) if (asked.front === front) this.answered(id, { error: null });
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
    const port = this.ports.get(front)!;
    const id = ++this.nextId;
    const onAbort = () => port.postMessage({ kind: 'cancel', id } satisfies PeerMessage);
    const reply = await new Promise<Reply>((resolve) => {
      this.asked.set(id, { front, resolve });
      port.postMessage({ kind: 'ask', id, request } satisfies PeerMessage);
      // Gone already (while its credentials were checked): the other front is told at once.
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    signal.removeEventListener('abort', onAbort);
    return jsonFieldsOf(reply);
  }

  private answered(id: number, reply: Reply): void {
    this.asked.get(id)?.resolve(reply);
    this.asked.delete(id);
  }

  /** Stops listening to the other fronts. */
  close(): void {
    for (const port of this.ports.values()) port.close();
  }

  private receive(front: number, port: MessagePort, message: PeerMessage, answer: QueueAnswerer): void {
    switch (message.kind) {
      case 'answer':
        this.answered(message.id, message.reply);
        return;
      case 'cancel':
        this.serving.get(`${front}:${message.id}`)?.abort();
        return;
      case 'ask': {
        const key = `${front}:${message.id}`;
        const controller = new AbortController();
        this.serving.set(key, controller);
        void answer(message.request, () => controller.signal)
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
            port.postMessage({ kind: 'answer', id: message.id, reply } satisfies PeerMessage);
          });
        return;
      }
    }
  }
}
