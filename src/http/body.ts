// Request bodies: read whole within the per-request limit, into one buffer of the declared length
// (no chunk list to join: a body costs its size once while it is read), and counted against a
// budget of bytes buffered across every request in flight — on every thread that serves clients,
// counted in shared memory — so many large bodies at once are refused (503) instead of growing the
// process without bound.
import { errors } from '../errors.js';
import type { Exchange } from './response.js';

export interface BodyHead {
  contentLength: string;
  transferEncoding: string;
}

/** The body of a request without one. */
export const NO_BODY = Buffer.alloc(0);

/** Where the bytes bodies hold are counted: one per process, shared by the threads that serve
 * clients (a worker's `workerData` carries it). */
export const newBodyBudget = (): SharedArrayBuffer => new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT);

export class BodyReader {
  /** BigInt64: the bytes held by bodies being read or handled right now, on every thread. */
  private readonly buffered: BigInt64Array;
  private readonly budgetBytes: bigint;
  private readonly reserved = new WeakMap<Exchange, number>();

  constructor(
    /** The largest body one request may have. */
    private readonly maxBytes: number,
    /** The most bytes all requests in flight may hold at once. */
    budgetBytes: number,
    budget: SharedArrayBuffer,
  ) {
    this.buffered = new BigInt64Array(budget);
    this.budgetBytes = BigInt(budgetBytes);
  }

  /** The whole body; a request without one has it at once (no promise). */
  read(exchange: Exchange, head: BodyHead): Buffer | Promise<Buffer> {
    const chunked = head.transferEncoding !== '';
    if (!chunked && head.contentLength === '') return NO_BODY;
    const declared = chunked ? undefined : Number(head.contentLength);
    if (declared !== undefined && (!Number.isSafeInteger(declared) || declared < 0)) return this.refuse(exchange, errors.badRequest('Invalid Content-Length header'));
    if (declared === 0) return NO_BODY;
    // Answer before reading and close the connection, so the client need not send the rest.
    if (declared !== undefined && declared > this.maxBytes) return this.refuse(exchange, errors.bodyTooLarge(this.maxBytes));
    if (declared !== undefined && !this.reserve(exchange, declared)) return this.refuse(exchange, errors.serverBusy());
    return new Promise((resolve, reject) => {
      exchange.onAbort = () => reject(new Error('client went away before sending the whole body'));
      const fixed = declared === undefined ? undefined : Buffer.allocUnsafe(declared);
      const chunks: Buffer[] = [];
      let size = 0;
      exchange.res.onData((chunk, isLast) => {
        if (exchange.done) return;
        const end = size + chunk.byteLength;
        if (end > this.maxBytes || (fixed !== undefined && end > fixed.length)) {
          reject(end > this.maxBytes ? this.closing(exchange, errors.bodyTooLarge(this.maxBytes)) : this.closing(exchange, errors.badRequest('Body longer than its Content-Length')));
          return;
        }
        // uWS reuses the chunk's memory after this callback returns: copy it out now.
        if (fixed) Buffer.from(chunk).copy(fixed, size);
        else if (!this.reserve(exchange, (this.reserved.get(exchange) ?? 0) + chunk.byteLength)) return reject(this.closing(exchange, errors.serverBusy()));
        else chunks.push(Buffer.from(chunk.slice(0)));
        size = end;
        if (isLast) resolve(fixed ? fixed.subarray(0, size) : Buffer.concat(chunks, size));
      });
    });
  }

  /** Gives the request's bytes back to the budget; call once it is answered. */
  release(exchange: Exchange): void {
    Atomics.sub(this.buffered, 0, BigInt(this.reserved.get(exchange) ?? 0));
    this.reserved.delete(exchange);
  }

  /** Holds `total` bytes for the exchange (replacing what it held), if the budget allows. */
  private reserve(exchange: Exchange, total: number): boolean {
    const more = BigInt(total - (this.reserved.get(exchange) ?? 0));
    // Another thread may change the count between the read and the write: then read it again.
    for (let now = Atomics.load(this.buffered, 0); ; ) {
      if (now + more > this.budgetBytes) return false;
      const found = Atomics.compareExchange(this.buffered, 0, now, now + more);
      if (found === now) break;
      now = found;
    }
    this.reserved.set(exchange, total);
    return true;
  }

  private closing(exchange: Exchange, error: Error): Error {
    exchange.closeConnection = true;
    return error;
  }

  private refuse(exchange: Exchange, error: Error): Promise<never> {
    return Promise.reject(this.closing(exchange, error));
  }
}
