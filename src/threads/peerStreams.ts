// The event WebSocket of a client whose socket landed on one front and whose queue another holds:
// the holding front attaches a consumer that forwards the queue's events to the socket's front
// (each batch once, as they arrive), which writes the frames and forwards the client's
// acknowledgements; either side letting go tells the other (the socket closed, or the queue taken
// over, deleted or shut down).
import type { Consumer, DetachReason, EventQueue } from '../events/queue.js';
import { crossing } from '../events/jsonText.js';
import type { QueuedEvent } from '../events/types.js';
import type { Reply } from '../realm/replies.js';

/** What the socket's front asks to attach. */
export interface AttachRequest {
  realmId: number;
  userId: number;
  queueId: string;
  lastEventId: number;
}

/** A stream's messages between the two fronts, by the ID the socket's front gave it. */
export type StreamMessage =
  | { kind: 'attach'; id: number; request: AttachRequest }
  | { kind: 'attached'; id: number; queueId: string; lastEventId: number }
  | { kind: 'refused'; id: number; reply: Reply }
  | { kind: 'events'; id: number; events: QueuedEvent[] }
  | { kind: 'ack'; id: number; lastEventId: number }
  | { kind: 'release'; id: number }
  | { kind: 'detach'; id: number; reason: DetachReason };

/** The socket's side of a stream: what the holding front tells it. */
export interface RemoteReader {
  attached(queueId: string, lastEventId: number): void;
  refused(reply: Reply): void;
  events(events: QueuedEvent[]): void;
  detached(reason: DetachReason): void;
}

/** The socket's hold on a queue another front has. */
export interface StreamLink {
  acknowledge(lastEventId: number): void;
  /** The socket let go (closed, too slow, or attached elsewhere). */
  release(): void;
}

/** Each queued event as it crosses, made once: a QueuedEvent is shared by every queue that gets it,
 * and so is its crossing form, so a post to another front carries it once however many sockets
 * there read it (a port's copy keeps an object sent twice one object), and that front encodes its
 * frame once a post (events/types.ts caches frames by the QueuedEvent). */
const crossings = new WeakMap<QueuedEvent, QueuedEvent>();

function crossingQueued(queued: QueuedEvent): QueuedEvent {
  let crossed = crossings.get(queued);
  if (crossed === undefined) crossings.set(queued, (crossed = { id: queued.id, event: crossing(queued.event) }));
  return crossed;
}

/** The holding front's consumer for a socket on another front: forwards every event after the last
 * it forwarded. */
export class PeerConsumer implements Consumer {
  constructor(
    readonly queue: EventQueue,
    private sentUpTo: number,
    private readonly post: (message: StreamMessage) => void,
    readonly id: number,
    /** Told when the queue lets it go, so that the stream is forgotten. */
    private readonly ended: () => void,
  ) {}

  notify(): void {
    const events = this.queue.after(this.sentUpTo);
    if (events.length === 0) return;
    this.sentUpTo = events.at(-1)!.id;
    this.post({ kind: 'events', id: this.id, events: events.map(crossingQueued) });
  }

  detach(reason: DetachReason): void {
    this.queue.release(this);
    this.ended();
    this.post({ kind: 'detach', id: this.id, reason });
  }

  /** The socket let go. */
  release(): void {
    this.queue.release(this);
    this.ended();
  }
}
