// Writes JSON responses on a uWS response object: corked, and never after the client went away.
import type { Readable } from 'node:stream';
import type { HttpResponse } from 'uWebSockets.js';
import { ApiError, errors } from '../errors.js';
import type { Logger } from '../ops/log.js';
import { JsonFields, membersOf, PIECE } from '../realm/jsonFields.js';
import { ScratchBytes } from './scratchBytes.js';

const statusText: Record<number, string> = {
  200: '200 OK',
  302: '302 Found',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  413: '413 Payload Too Large',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  502: '502 Bad Gateway',
  503: '503 Service Unavailable',
  507: '507 Insufficient Storage',
};

/** One in-flight exchange; uWS's onAborted sets `aborted`, calls `onAbort` and fires the abort
 * signal, if anyone asked for it (`abortSignal`: most requests never do, and an AbortController
 * costs: reading a body sets `onAbort` instead). */
export interface Exchange {
  res: HttpResponse;
  aborted: boolean;
  done: boolean;
  abort?: AbortController;
  onAbort?: () => void;
  /** Close the connection after the response (the server is shutting down, or the client is
   * sending a body it will not be read). */
  closeConnection: boolean;
  /** Whether a 401 may carry a Basic challenge: not for a web page's requests (X-Requested-With),
   * whose browser would answer it with a password prompt of its own. */
  challenge: boolean;
  /** Headers every response of the exchange carries (rate-limit state). */
  headers: Record<string, string>;
  /** When the request arrived (performance.now()). */
  started: number;
  /** Set while uWS's handler for the request runs, which has corked the socket already: an answer
   * written then is not corked again. */
  inHandler: boolean;
  /** Whose request it is, once known (logs and metrics). */
  realmId?: number;
  userId?: number;
  /** The answer's status and body size, once answered. */
  status: number;
  bytes: number;
}

/** Starts an exchange; must be called before the uWS handler returns. */
export function openExchange(res: HttpResponse): Exchange {
  const exchange: Exchange = { res, aborted: false, done: false, closeConnection: false, challenge: true, headers: {}, started: performance.now(), inHandler: false, status: 0, bytes: 0 };
  res.onAborted(() => {
    exchange.aborted = true;
    exchange.onAbort?.();
    exchange.abort?.abort();
  });
  return exchange;
}

/** The client's address (uWS's text form), read only where it is needed: reading it costs about as
 * much as all of a request's headers. Only while the exchange is open (not aborted). */
export function remoteAddress(exchange: Exchange): string {
  return Buffer.from(exchange.res.getRemoteAddressAsText()).toString();
}

/** Fires when the client goes away before the exchange is answered (at once if it already has). */
export function abortSignal(exchange: Exchange): AbortSignal {
  exchange.abort ??= new AbortController();
  if (exchange.aborted) exchange.abort.abort();
  return exchange.abort.signal;
}

/** Writes the one response of an exchange, unless the client is gone or it was answered: the
 * exchange's headers (but those `headers` sets itself), then `headers`. */
function finish(exchange: Exchange, status: number, headers: Record<string, string>, body?: string | Uint8Array): void {
  if (exchange.aborted || exchange.done) return;
  exchange.done = true;
  exchange.status = status;
  exchange.bytes = typeof body === 'string' ? Buffer.byteLength(body) : (body?.length ?? 0);
  if (exchange.inHandler) write(exchange, status, headers, body);
  else exchange.res.cork(() => write(exchange, status, headers, body));
}

function write(exchange: Exchange, status: number, headers: Record<string, string>, body?: string | Uint8Array): void {
  const { res } = exchange;
  // uWS answers 200 OK when given no status.
  if (status !== 200) res.writeStatus(statusText[status] ?? String(status));
  for (const name in exchange.headers) if (!Object.hasOwn(headers, name)) res.writeHeader(name, exchange.headers[name]!);
  for (const name in headers) res.writeHeader(name, headers[name]!);
  res.end(body, exchange.closeConnection);
}

const JSON_HEADERS: Record<string, string> = { 'Content-Type': 'application/json' };

export function sendJson(exchange: Exchange, status: number, body: unknown, headers?: Record<string, string>): void {
  finish(exchange, status, headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS, JSON.stringify(body));
}

export function sendPage(exchange: Exchange, status: number, html: string): void {
  finish(exchange, status, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY' }, html);
}

export function sendRedirect(exchange: Exchange, location: string): void {
  finish(exchange, 302, { Location: location });
}

/** The headers of a file answer (a FileBody): its type, how long it may be kept, and no sniffing. */
export const fileHeaders = (file: { contentType: string; cacheControl: string }): Record<string, string> => ({
  'Content-Type': file.contentType,
  'Cache-Control': file.cacheControl,
  'X-Content-Type-Options': 'nosniff',
});

export function sendFile(exchange: Exchange, file: { contentType: string; cacheControl: string; body: Buffer }): void {
  finish(exchange, 200, fileHeaders(file), file.body);
}

/** Streams a file of known size as the response, reading on only as fast as the client takes it. */
export function sendStream(exchange: Exchange, stream: Readable, size: number, headers: Record<string, string>): void {
  if (exchange.aborted || exchange.done) return void stream.destroy();
  exchange.done = true;
  exchange.status = 200;
  exchange.bytes = size;
  const { res } = exchange;
  abortSignal(exchange).addEventListener('abort', () => stream.destroy());
  res.cork(() => {
    res.writeStatus(statusText[200]!);
    for (const [name, value] of Object.entries({ ...exchange.headers, ...headers })) res.writeHeader(name, value);
    if (size === 0) res.end(undefined, exchange.closeConnection);
  });
  if (size === 0) return void stream.destroy();
  stream.on('error', () => {
    if (!exchange.aborted) res.close();
  });
  stream.on('data', (data: Buffer | string) => {
    if (exchange.aborted) return;
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const start = res.getWriteOffset();
    let sent = false;
    let finished = false;
    res.cork(() => ([sent, finished] = res.tryEnd(bytes, size)));
    if (finished) return void stream.destroy();
    if (sent) return;
    stream.pause();
    res.onWritable((offset) => {
      const [ok, done] = res.tryEnd(bytes.subarray(offset - start), size);
      if (done) stream.destroy();
      else if (ok) stream.resume();
      return ok;
    });
  });
}

const IGNORED = 'ignored_parameters_unsupported';

/** What every success answer starts with, in Zulip's order. */
const SUCCESS_HEAD = '{"result":"success","msg":""';

/** Sends a success answer's JSON: as text, or as UTF-8 bytes that uWebSockets.js copies. */
type Send = (body: string | Uint8Array) => void;

/** Answers `{result: 'success', msg: '', ...body}` (and the parameters ignored, if any); a body
 * given as JSON fields is joined as it is. */
export function sendSuccess(exchange: Exchange, body: object | JsonFields, ignored: readonly string[]): void {
  const send: Send = (json) => finish(exchange, 200, JSON_HEADERS, json);
  if (body instanceof JsonFields) sendFields(body.parts, ignored, send);
  else bodyJson(body, ignored, send);
}

/** A plain body's JSON is joined to the fixed head, without copying the body into a new object;
 * anything else is copied as the spread says. */
function bodyJson(body: object, ignored: readonly string[], send: Send): void {
  const prototype = Object.getPrototypeOf(body) as unknown;
  if ((prototype === Object.prototype || prototype === null) && !Object.hasOwn(body, 'result') && !Object.hasOwn(body, 'msg') && !Object.hasOwn(body, IGNORED)) {
    return sendFields(membersOf(body), ignored, send);
  }
  const payload: Record<string, unknown> = { result: 'success', msg: '', ...body };
  if (ignored.length > 0) payload[IGNORED] = ignored;
  send(JSON.stringify(payload));
}

/** Sends the fixed head, an object's members (JSON without braces, in pieces of text, which are
 * not made into one long string) and the parameters ignored: joined as text while short, else
 * written into the kept scratch, which `send` has uWebSockets.js copy before it returns. */
function sendFields(fields: readonly string[], ignored: readonly string[], send: Send): void {
  const tail = ignored.length > 0 ? `,"${IGNORED}":${JSON.stringify(ignored)}}` : '}';
  let length = 0;
  for (const part of fields) length += part.length;
  if (length === 0) return send(SUCCESS_HEAD + tail);
  if (length <= PIECE) return send(`${SUCCESS_HEAD},${fields.join('')}${tail}`);
  const scratch = ScratchBytes.take();
  try {
    scratch.text(`${SUCCESS_HEAD},`);
    for (const part of fields) scratch.text(part);
    scratch.text(tail);
    send(scratch.view());
  } finally {
    scratch.release();
  }
}

/** Answers with an error in Zulip's shape; anything but an ApiError is a bug: logged, answered 500. */
export function sendError(exchange: Exchange, error: unknown, log: Logger): void {
  // A client that went away is answered nothing, and what ended its request is no bug.
  if (exchange.aborted) return;
  const apiError = error instanceof ApiError ? error : errors.internal();
  if (!(error instanceof ApiError)) log.error({ err: error }, 'request failed');
  const { 'WWW-Authenticate': challenge, ...headers } = apiError.headers;
  sendJson(exchange, apiError.status, apiError.body(), challenge !== undefined && exchange.challenge ? apiError.headers : headers);
}
