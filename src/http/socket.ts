// The WebSocket event stream, another way to read an event queue (docs/api.md, "Event stream").
// Authenticated at the upgrade (Basic header, or a token from POST /events/socket_token), bound
// to that user; the client attaches to one of its queues with the last event ID it has, gets
// every later event as one frame each, and acknowledges to prune. JSON text frames by default,
// msgpack binary frames with ?format=msgpack.
import { pack, unpack } from 'msgpackr';
import { parse as parseQuery } from 'fast-querystring';
import uWS from 'uWebSockets.js';
import { ApiError, errors } from '../errors.js';
import { authenticate } from './auth.js';
import { openExchange, sendError } from './response.js';
import type { ServerContext } from './route.js';
import type { RealmHandle } from '../realm/handle.js';
import { CloseCode } from '../events/closeCodes.js';
import type { Consumer, DetachReason, EventQueue } from '../events/queue.js';
import type { Grants } from '../auth/grants.js';
import { eventFrame, type FrameFormat, type QueuedEvent } from '../events/types.js';
import { refusalOf } from '../realm/replies.js';

export const SOCKET_PATH = '/api/v1/events/socket';
const MAX_FRAME_BYTES = 16 * 1024;
/** uWS's send() result for a frame dropped because of backpressure. */
const SEND_DROPPED = 2;

interface SocketData {
  realm: RealmHandle;
  userId: number;
  format: FrameFormat;
  attached: Attachment | null;
}

type Socket = uWS.WebSocket<SocketData>;

/** The queue a socket reads: one here, or one another front holds (threads/peerStreams.ts). */
interface Attachment {
  acknowledge(lastEventId: number): void;
  /** The socket lets go: it closed, or attached to another queue. */
  release(): void;
}

const detachCodes: Record<DetachReason, [number, string]> = {
  replaced: [CloseCode.replaced, 'another consumer attached to the queue'],
  deleted: [CloseCode.badEventQueueId, 'the queue was deleted'],
  shutdown: [CloseCode.goingAway, 'server shutting down'],
};

/** Writes a queue's events to the socket as frames, each once, in order; a reader too far behind
 * is cut off (it resumes from its last event ID when it reconnects). */
class FrameWriter {
  closed = false;

  constructor(
    private readonly socket: Socket,
    /** The last event ID written. */
    public sentUpTo: number,
    private readonly maxBackpressure: number,
    /** Told when the writer closes the socket, to let go of the queue. */
    private readonly letGo: () => void,
  ) {}

  write(events: readonly QueuedEvent[]): void {
    if (this.closed) return;
    const { format } = this.socket.getUserData();
    let dropped = false;
    this.socket.cork(() => {
      for (const queued of events) {
        if (queued.id <= this.sentUpTo) continue;
        const status = this.socket.send(eventFrame(queued, format), format === 'msgpack');
        if (status === SEND_DROPPED) {
          dropped = true;
          break;
        }
        this.sentUpTo = queued.id;
      }
    });
    if (dropped || this.socket.getBufferedAmount() > this.maxBackpressure) this.close(CloseCode.tooSlow, 'reader too slow; resume from the last event ID');
  }

  detach(reason: DetachReason): void {
    const [code, message] = detachCodes[reason];
    this.close(code, message);
  }

  close(code: number, message: string): void {
    if (this.closed) return;
    this.closed = true;
    this.letGo();
    this.socket.end(code, message);
  }
}

/** The socket as the consumer of a queue here: writes every event after the last it wrote. */
class SocketConsumer implements Consumer, Attachment {
  private readonly writer: FrameWriter;

  constructor(
    socket: Socket,
    private readonly queue: EventQueue,
    sentUpTo: number,
    maxBackpressure: number,
  ) {
    this.writer = new FrameWriter(socket, sentUpTo, maxBackpressure, () => this.queue.release(this));
  }

  notify(): void {
    this.writer.write(this.queue.after(this.writer.sentUpTo));
  }

  acknowledge(lastEventId: number): void {
    this.queue.acknowledge(lastEventId);
  }

  detach(reason: DetachReason): void {
    this.writer.detach(reason);
  }

  release(): void {
    this.writer.closed = true;
    this.queue.release(this);
  }
}

function send(socket: Socket, message: Record<string, unknown>): void {
  if (socket.getUserData().format === 'json') socket.send(JSON.stringify(message), false);
  else socket.send(pack(message), true);
}

function refuse(socket: Socket, code: number, error: ApiError): void {
  send(socket, { control: 'error', code: error.code, msg: error.message });
  socket.end(code, error.message);
}

function decode(message: ArrayBuffer, isBinary: boolean): unknown {
  const bytes = Buffer.from(message);
  return isBinary ? unpack(bytes) : JSON.parse(bytes.toString('utf8'));
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

function onMessage(server: ServerContext, socket: Socket, message: ArrayBuffer, isBinary: boolean): void {
  let frame: unknown;
  try {
    frame = decode(message, isBinary);
  } catch {
    return refuse(socket, CloseCode.badFrame, errors.badRequest('Malformed frame'));
  }
  const data = socket.getUserData();
  const op = typeof frame === 'object' && frame !== null ? (frame as Record<string, unknown>).op : undefined;
  const fields = frame as Record<string, unknown>;
  if (op === 'attach' && typeof fields.queue_id === 'string' && isInteger(fields.last_event_id ?? -1)) {
    const lastEventId = (fields.last_event_id as number | undefined) ?? -1;
    data.attached?.release();
    data.attached = null;
    const holder = server.peers?.holder(fields.queue_id);
    if (holder !== undefined) return attachElsewhere(server, socket, holder, fields.queue_id, lastEventId);
    let queue: EventQueue;
    try {
      queue = server.queues.get(fields.queue_id, data.realm.realm.id, data.userId);
    } catch (error) {
      return refuse(socket, CloseCode.badEventQueueId, error as ApiError);
    }
    queue.acknowledge(lastEventId);
    const consumer = new SocketConsumer(socket, queue, lastEventId, server.config.socketMaxBackpressureBytes);
    data.attached = consumer;
    queue.attach(consumer);
    send(socket, { control: 'attached', queue_id: queue.id, last_event_id: queue.lastEventId });
    consumer.notify();
  } else if (op === 'ack' && data.attached && isInteger(fields.last_event_id)) {
    data.attached.acknowledge(fields.last_event_id);
  } else {
    refuse(socket, CloseCode.badFrame, errors.badRequest('Expected {"op": "attach", "queue_id", "last_event_id"} or {"op": "ack", "last_event_id"}'));
  }
}

/** Attaches the socket to a queue another front holds: it forwards the queue's events, the socket
 * its acknowledgements. */
function attachElsewhere(server: ServerContext, socket: Socket, holder: number, queueId: string, lastEventId: number): void {
  const data = socket.getUserData();
  const writer = new FrameWriter(socket, lastEventId, server.config.socketMaxBackpressureBytes, () => link.release());
  const link = server.peers!.attach(holder, { realmId: data.realm.realm.id, userId: data.userId, queueId, lastEventId }, {
    attached: (id, last) => send(socket, { control: 'attached', queue_id: id, last_event_id: last }),
    refused: (reply) => refuse(socket, CloseCode.badEventQueueId, refusalOf(reply)),
    events: (events) => writer.write(events),
    detached: (reason) => writer.detach(reason),
  });
  data.attached = {
    acknowledge: (id) => link.acknowledge(id),
    release: () => {
      writer.closed = true;
      link.release();
    },
  };
}

export interface EventSockets {
  /** How many are open now. */
  readonly size: number;
  closeAll(): void;
}

export function addEventSocket(app: uWS.TemplatedApp, server: ServerContext, tokens: Grants): EventSockets {
  const open = new Set<Socket>();
  const { log, metrics } = server.config;
  app.ws<SocketData>(SOCKET_PATH, {
    maxPayloadLength: MAX_FRAME_BYTES,
    // Past our own limit the socket is closed (tooSlow); uWS's, higher, only guards against bursts.
    maxBackpressure: server.config.socketMaxBackpressureBytes * 4,
    idleTimeout: 60,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => {
      const head = {
        host: req.getHeader('host'),
        authorization: req.getHeader('authorization'),
        query: parseQuery(req.getQuery() ?? '') as Record<string, unknown>,
        key: req.getHeader('sec-websocket-key'),
        protocol: req.getHeader('sec-websocket-protocol'),
        extensions: req.getHeader('sec-websocket-extensions'),
      };
      const exchange = openExchange(res);
      void (async () => {
        const realm = server.realms.forHost(head.host);
        if (!realm) throw errors.notFound();
        if (server.queues.closing) throw errors.notFound();
        const token = typeof head.query.token === 'string' ? head.query.token : undefined;
        const userId = token === undefined ? (await authenticate(realm, head.authorization)).userId : tokens.redeem(token, realm.realm.id);
        if (userId === undefined) throw errors.invalidApiKey();
        const format: FrameFormat = head.query.format === 'msgpack' ? 'msgpack' : 'json';
        if (exchange.aborted) return;
        res.cork(() => res.upgrade<SocketData>({ realm, userId, format, attached: null }, head.key, head.protocol, head.extensions, context));
      })().catch((error: unknown) => sendError(exchange, error, log));
    },
    open: (socket) => {
      open.add(socket);
      const { realm, userId, format } = socket.getUserData();
      log.info({ realm: realm.realm.id, user: userId, format }, 'socket open');
    },
    message: (socket, message, isBinary) => onMessage(server, socket, message, isBinary),
    close: (socket, code) => {
      open.delete(socket);
      const { realm, userId, attached } = socket.getUserData();
      attached?.release();
      metrics.socketClosed(code);
      log.info({ realm: realm.realm.id, user: userId, code }, 'socket closed');
    },
  });
  return {
    get size() {
      return open.size;
    },
    closeAll() {
      for (const socket of open) socket.end(CloseCode.goingAway, 'server shutting down');
    },
  };
}
