// The uWS application: one catch-all handler runs each request through small named steps —
// copy the request out of uWS, read the body, route, authenticate, validate, run the handler,
// respond — each of which may end the exchange early with an error.
import uWS from 'uWebSockets.js';
import { ApiError, errors } from '../errors.js';
import type { RealmHandle } from '../realm/handle.js';
import { parse as parseQuery } from 'fast-querystring';
import { authenticate, authenticateWebhook } from './auth.js';
import { BodyReader, NO_BODY } from './body.js';
import { readParams } from './params.js';
import { abortSignal, openExchange, remoteAddress, sendError, sendFile, sendPage, sendRedirect, sendStream, sendSuccess, type Exchange } from './response.js';
import { FileBody, FileStream, onceReady, Page, Redirect, type Body, type PublicRequest, type Route, type ServerContext, type UploadRequest, type UserRequest, type WebhookRequest } from './route.js';
import { Router, type Match, type PathParams } from './router.js';
import { HeldBody, receiveUpload, type ReceivedFile, type UploadLimits } from './upload.js';
import { addEventSocket } from './socket.js';
import { Role } from '../users/records.js';
import type { Principal } from '../auth/basic.js';
import type { Config } from '../config.js';
import type { EventQueues } from '../events/queues.js';
import type { FileStorage } from '../files/storage.js';
import type { Grants } from '../auth/grants.js';
import type { LoginLimiter } from '../auth/loginLimiter.js';
import type { RenderPool } from '../messages/renderPool.js';
import type { FrontPeers } from '../threads/peers.js';

export const API_PREFIX = '/api/v1';

/** What the pipeline needs of a request, copied out of uWS before the handler returns. */
interface RequestHead {
  method: string;
  path: string;
  query: string;
  host: string;
  authorization: string;
  contentType: string;
  contentLength: string;
  transferEncoding: string;
  userAgent: string;
  /** Every header, by lowercase name: read for incoming webhooks only (services name their events
   * in headers of their own). */
  headers?: Map<string, string>;
}

/** A stopping server closes its connections once no request has arrived for a while
 * (PARLEY_SHUTDOWN_QUIET_MS)… or after this long, whatever comes. */
const SHUTDOWN_GRACE_MS = 2000;

/** A routed, authenticated request: the route to run, the request its handler gets, and the
 * parameters of its path. */
interface Admitted {
  run: CompiledRoute['run'];
  request: PublicRequest | UserRequest;
  principal: Principal | undefined;
  params: PathParams;
}

/** The route pattern of a request that matched none. */
const UNROUTED = '(unrouted)';

interface CompiledRoute {
  route: Route;
  /** The path pattern it was added under (what logs and metrics name requests by). */
  pattern: string;
  run: ReturnType<Route['compile']>['run'];
}

export interface HttpServer {
  readonly port: number;
  /** Event WebSockets open now. */
  readonly openSockets: number;
  /** Stops accepting connections; requests on those open go on being served. (With threads that
   * share the port, every thread stops accepting before any closes its connections: a connection
   * the kernel queued for a thread as it stops is reset, and clients whose connections close come
   * back at once.) */
  stopListening(): void;
  /** Stops accepting connections, runs `release` (which lets parked long-polls and sockets go),
   * and resolves when every in-flight request has been answered. */
  close(release: () => void): Promise<void>;
}

export function buildRouter(routes: readonly Route[]): Router<CompiledRoute> {
  const router = new Router<CompiledRoute>();
  for (const route of routes) {
    try {
      const pattern = route.atRoot ? route.path : `${API_PREFIX}${route.path}`;
      router.add(route.method, pattern, { route, pattern, run: route.compile().run });
    } catch (cause) {
      throw new Error(`route ${route.method} ${route.path}`, { cause });
    }
  }
  return router;
}

/** How a server holds its port: alone, or shared with the other threads that serve the same
 * clients (PARLEY_THREADS above 2: the kernel spreads connections over them; threads/claimPort.ts). */
export type PortSharing = 'exclusive' | 'shared';

export async function startHttpServer(server: ServerContext, routes: readonly Route[], sharing: PortSharing = 'exclusive'): Promise<HttpServer> {
  return new HttpFront(server, routes).listen(sharing);
}

/** The HTTP server: uWS's app, every request's way through routing, authentication, limits and
 * its handler, and a graceful close. */
class HttpFront {
  private readonly config: ServerContext['config'];
  private readonly realms: ServerContext['realms'];
  private readonly rateLimiter: ServerContext['rateLimiter'];
  private readonly files: ServerContext['files'];
  private readonly router: Router<CompiledRoute>;
  private readonly inFlight = new Set<Exchange>();
  private readonly bodies: BodyReader;
  private readonly app = uWS.App();
  private readonly sockets: ReturnType<typeof addEventSocket>;
  private drained: (() => void) | undefined;
  private closing = false;
  private listening = true;
  /** When the last request arrived (performance.now()): a shutdown waits for a quiet moment. */
  private lastArrival = 0;

  constructor(
    private readonly server: ServerContext,
    routes: readonly Route[],
  ) {
    this.config = server.config;
    this.realms = server.realms;
    this.rateLimiter = server.rateLimiter;
    this.files = server.files;
    this.router = buildRouter(routes);
    this.bodies = new BodyReader(this.config.maxBodyBytes, this.config.maxBufferedBodyBytes, server.bodyBudget);
    this.sockets = addEventSocket(this.app, server, server.socketTokens);
    // Every method of every path; the router decides.
    this.app.any('/*', (res, req) => this.accept(res, req)); // uWebSockets.js's route for every HTTP method, not TypeScript's `any` type
  }

  /** A request arrives: its head is read while uWS's handler runs, then it is served. */
  private accept(res: uWS.HttpResponse, req: uWS.HttpRequest): void {
    this.lastArrival = performance.now();
    const head: RequestHead = {
      method: req.getCaseSensitiveMethod().toUpperCase(),
      path: req.getUrl(),
      query: req.getQuery() ?? '',
      host: req.getHeader('host'),
      authorization: req.getHeader('authorization'),
      contentType: req.getHeader('content-type'),
      contentLength: req.getHeader('content-length'),
      transferEncoding: req.getHeader('transfer-encoding'),
      userAgent: req.getHeader('user-agent'),
    };
    const exchange = openExchange(res);
    exchange.challenge = req.getHeader('x-requested-with') === '';
    if (this.closing) {
      // Shutting down: nothing new is routed, so every acknowledged write precedes the queues'
      // last save; the client retries on a new connection, which reaches the next server.
      exchange.closeConnection = true;
      sendError(exchange, errors.shuttingDown(), this.config.log);
      this.observe(exchange, head, UNROUTED);
      return;
    }
    this.inFlight.add(exchange);
    const match = this.router.match(head.method, head.path);
    if (match.kind === 'found' && match.value.route.webhook) {
      const headers = (head.headers = new Map());
      req.forEach((name, value) => headers.set(name, value));
    }
    exchange.inHandler = true;
    void this.serve(exchange, head, match);
    exchange.inHandler = false;
  
  }

  /** Answers one request, and logs and measures it. Each step that can finish at once does, without
   * a promise: a request that needs neither its body's bytes nor another node is answered before
   * uWS's handler returns. */
  private async serve(exchange: Exchange, head: RequestHead, match: Match<CompiledRoute>): Promise<void> {
    try {
      // An upload's body is streamed by its handler; every other body is read before routing on.
      if (match.kind === 'found' && match.value.route.upload) return await this.handleUpload(exchange, head, match, new HeldBody(exchange));
      const reading = this.bodies.read(exchange, head);
      const body = reading instanceof Promise ? await reading : reading;
      const admitting = this.admit(exchange, head, match);
      const { run, request, params } = admitting instanceof Promise ? await admitting : admitting;
      // A webhook's body is the service's own: its parameters are the URL's.
      const parsing = match.kind === 'found' && match.value.route.webhook ? readParams(head.query, NO_BODY, '') : readParams(head.query, body, head.contentType);
      const handled = run(match.kind === 'found' && match.value.route.webhook ? webhookRequest(request, head, body) : request, Object.assign(parsing instanceof Promise ? await parsing : parsing, params));
      this.respond(exchange, handled.ignored, handled.result instanceof Promise ? await handled.result : handled.result);
    } catch (error) {
      sendError(exchange, error, this.config.log);
    } finally {
      this.observe(exchange, head, match.kind === 'found' ? match.value.pattern : UNROUTED);
      this.bodies.release(exchange);
      this.inFlight.delete(exchange);
      if (this.inFlight.size === 0) this.drained?.();
    }
  }

  /** Authenticates; a failed attempt counts against the client's address, and once the address
   * has used its attempts up, failures are 429s. Valid credentials always pass: people behind the
   * same address as a guesser are not locked out. */
  private authenticateLimited(exchange: Exchange, realm: RealmHandle, head: RequestHead, route: Route): Principal | Promise<Principal> {
    const refused = (address: string | undefined) => (error: unknown): never => {
      if (error instanceof ApiError && error.status === 401) this.spendAddress(address);
      throw error;
    };
    try {
      const principal = route.auth === 'webhook' ? authenticateWebhook(realm, head.authorization, apiKeyOf(head.query)) : authenticate(realm, head.authorization);
      // The address is read now: by the time another node answers, the client may have gone.
      return principal instanceof Promise ? principal.catch(refused(this.limitedAddress(exchange))) : principal;
    } catch (error) {
      return refused(this.limitedAddress(exchange))(error);
    }
  }

  /** The client's address, when rate limits are on (reading it costs; they need it). */
  private readonly limitedAddress = (exchange: Exchange): string | undefined => (this.rateLimiter.settings.enabled ? remoteAddress(exchange) : undefined);
  private readonly spendAddress = (address: string | undefined): Record<string, string> => (address === undefined ? {} : this.rateLimiter.spend(`address:${address}`, this.rateLimiter.settings.address));

  /** Routes, authenticates, rate-limits and checks the caller's role: the route to run and the
   * request its handler gets (at once, unless the realm answers credentials through a promise). */
  private admit(exchange: Exchange, head: RequestHead, match: Match<CompiledRoute>): Admitted | Promise<Admitted> {
    if (match.kind === 'notFound') throw errors.notFound();
    if (match.kind === 'wrongMethod') throw errors.methodNotAllowed(match.allowed);
    const realm = this.realms.forHost(head.host);
    if (!realm) throw errors.notFound();
    exchange.realmId = realm.realm.id;
    if (match.value.route.auth === 'none') return this.admitted(exchange, head, match, realm, undefined);
    return onceReady(this.authenticateLimited(exchange, realm, head, match.value.route), (principal) => this.admitted(exchange, head, match, realm, principal));
  }

  private admitted(exchange: Exchange, head: RequestHead, match: Match<CompiledRoute> & { kind: 'found' }, realm: RealmHandle, principal: Principal | undefined): Admitted {
    const { route, run } = match.value;
    exchange.userId = principal?.userId;
    if (!route.unlimited) {
      exchange.headers = principal
        ? this.rateLimiter.spend(`user:${realm.realm.id}:${principal.userId}`, this.rateLimiter.userRule(realm.realm.subdomain))
        : this.spendAddress(this.limitedAddress(exchange));
    }
    if (principal?.incomingWebhook && route.auth !== 'webhook' && !route.incomingWebhookBots) throw errors.incomingWebhookBot();
    if (route.auth === 'admin' && principal && principal.role > Role.administrator) throw errors.adminRequired();
    if (route.auth === 'human' && principal?.isBot) throw errors.humanOnly();
    return { run, request: new HandlerRequest(this.server, realm, exchange, head.userAgent, principal), principal, params: match.params };
  }

  /** An upload route: its parameters come from the query string, and its handler streams the body
   * when it asks for the file; a body it never asked for is not waited for. */
  private async handleUpload(exchange: Exchange, head: RequestHead, match: Match<CompiledRoute>, body: HeldBody): Promise<void> {
    let receiving = false;
    try {
      const { run, request, principal, params } = await this.admit(exchange, head, match);
      if (!principal) throw errors.unauthorized();
      const receiveFile = async <T>(limits: UploadLimits, record: (file: ReceivedFile) => Promise<T>) => {
        receiving = true;
        const file = await receiveUpload(exchange, body, head, this.files, limits, this.config.log);
        try {
          return { file, recorded: await record(file) };
        } catch (error) {
          await this.files.delete(file.key);
          throw error;
        }
      };
      const upload: UploadRequest = Object.assign(request, { user: principal, receiveFile });
      const handled = run(upload, Object.assign(await readParams(head.query, NO_BODY, ''), params));
      this.respond(exchange, handled.ignored, await handled.result);
    } finally {
      if (!receiving) exchange.closeConnection = true;
    }
  }

  /** One log line and one measurement per request: by route pattern, never the query string or
   * credentials. An exchange whose client left before the answer counts as status 0. */
  private observe(exchange: Exchange, head: RequestHead, route: string): void {
    const seconds = (performance.now() - exchange.started) / 1000;
    this.config.metrics.request(head.method, route, exchange.status, seconds);
    this.config.log.info({ realm: exchange.realmId, user: exchange.userId, method: head.method, route, status: exchange.status, ms: Math.round(seconds * 1e4) / 10, bytes: exchange.bytes }, 'request');
  }

  private respond(exchange: Exchange, ignored: string[], result: Body): void {
    if (result instanceof Redirect) sendRedirect(exchange, result.location);
    else if (result instanceof FileBody) sendFile(exchange, result);
    else if (result instanceof Page) sendPage(exchange, result.status, result.html);
    else if (result instanceof FileStream) sendStream(exchange, result.stream, result.size, result.headers);
    else sendSuccess(exchange, result, ignored);
  }

  async listen(sharing: PortSharing): Promise<HttpServer> {
    const listenSocket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
      const listening = (socket: uWS.us_listen_socket | false) => (socket ? resolve(socket) : reject(new Error(`cannot listen on ${this.config.host}:${this.config.port}: the address is in use or not available`)));
      // Exclusive unless shared: with SO_REUSEPORT (uWS's default), a second server on the same
      // port would silently share its connections.
      if (sharing === 'exclusive') this.app.listen(this.config.host, this.config.port, uWS.LIBUS_LISTEN_EXCLUSIVE_PORT, listening);
      else this.app.listen(this.config.host, this.config.port, listening);
    });
    const sockets = this.sockets;
    return {
      port: uWS.us_socket_local_port(listenSocket),
      get openSockets() {
        return sockets.size;
      },
      stopListening: () => this.stopListening(listenSocket),
      close: (release) => this.close(listenSocket, release),
    };
  }

  private stopListening(listenSocket: uWS.us_listen_socket): void {
    if (this.listening) uWS.us_listen_socket_close(listenSocket);
    this.listening = false;
  }

  private async close(listenSocket: uWS.us_listen_socket, release: () => void): Promise<void> {
    this.closing = true;
    this.stopListening(listenSocket);
    // Requests in flight finish, then their connections close rather than wait for more.
    for (const exchange of this.inFlight) exchange.closeConnection = true;
    release();
    this.sockets.closeAll();
    const answered = () => (this.inFlight.size > 0 ? new Promise<void>((resolve) => (this.drained = resolve)) : undefined);
    await answered();
    // A client may have sent a request on an idle keep-alive connection just as the server began
    // to stop: until no request has come for a moment, each is answered (503) and its connection
    // closed after the answer, so none meets a reset.
    const graceEnd = performance.now() + SHUTDOWN_GRACE_MS;
    const quietMs = this.server.config.shutdownQuietMs;
    while (performance.now() - this.lastArrival < quietMs && performance.now() < graceEnd) {
      await new Promise((resolve) => setTimeout(resolve, quietMs));
      await answered();
    }
    // Idle keep-alive connections would hold the process open until their clients leave.
    this.app.close();
  }
}

/** The `api_key` of a query string, if it has one. */
function apiKeyOf(query: string): string | undefined {
  if (!query.includes('api_key')) return undefined;
  const value = parseQuery(query).api_key;
  return Array.isArray(value) ? String(value.at(-1)) : typeof value === 'string' ? value : undefined;
}

/** An incoming webhook's request: the handler's, with the service's body and headers. */
function webhookRequest(request: PublicRequest | UserRequest, head: RequestHead, body: Buffer): WebhookRequest {
  const headers = head.headers ?? new Map<string, string>();
  return Object.assign(request as UserRequest, { body, header: (name: string) => headers.get(name.toLowerCase()) });
}

/** The request a handler gets. Its abort signal and client name are made only if the handler asks
 * (few do, and each costs). */
class HandlerRequest implements PublicRequest {
  readonly config: Config;
  readonly queues: EventQueues;
  readonly socketTokens: Grants;
  readonly callAuthorizations: Grants;
  readonly loginLimiter: LoginLimiter;
  readonly files: FileStorage;
  readonly renders: RenderPool | null;
  readonly peers: FrontPeers | null;

  constructor(
    server: ServerContext,
    readonly realm: RealmHandle,
    private readonly exchange: Exchange,
    private readonly userAgent: string,
    /** Set for every route whose `auth` is not 'none' (a UserRequest). */
    readonly user: Principal | undefined,
  ) {
    this.config = server.config;
    this.queues = server.queues;
    this.socketTokens = server.socketTokens;
    this.callAuthorizations = server.callAuthorizations;
    this.loginLimiter = server.loginLimiter;
    this.files = server.files;
    this.renders = server.renders;
    this.peers = server.peers;
  }

  get signal(): AbortSignal {
    return abortSignal(this.exchange);
  }

  /** Zulip's client name: the User-Agent's product token ("ZulipMobile/27.1 …" → "ZulipMobile"). */
  get client(): string {
    return /^[^\s/]+/.exec(this.userAgent)?.[0] ?? 'API';
  }
}
