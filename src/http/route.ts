// The shape of one route-table entry and of the request a handler sees.
import type { Readable } from 'node:stream';
import type { Config } from '../config.js';
import type { FileStorage } from '../files/storage.js';
import type { LoginLimiter } from '../auth/loginLimiter.js';
import type { RenderPool } from '../messages/renderPool.js';
import type { RateLimiter } from './rateLimit.js';
import type { EventQueues } from '../events/queues.js';
import type { FrontPeers } from '../threads/peers.js';
import type { Grants } from '../auth/grants.js';
import type { RealmDirectory, RealmHandle } from '../realm/handle.js';
import type { Principal } from '../auth/basic.js';
import type { RawParams } from './params.js';
import type { ReceivedFile, UploadLimits } from './upload.js';
import { compileValidator, type ParamSchema, type Params } from './validation.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Who may call a route: anyone, every user, users but not bots (Zulip's human_users_only),
 * administrators, or an incoming webhook (a user's key in the URL's `api_key`, or HTTP Basic). */
export type AuthKind = 'none' | 'user' | 'human' | 'admin' | 'webhook';

/** What every handler can reach. */
export interface ServerContext {
  config: Config;
  realms: RealmDirectory;
  queues: EventQueues;
  /** Single-use tokens that open the event WebSocket. */
  socketTokens: Grants;
  /** The `state` of video providers' OAuth flows in progress. */
  callAuthorizations: Grants;
  loginLimiter: LoginLimiter;
  rateLimiter: RateLimiter;
  /** Where the bytes of request bodies in flight are counted (http/body.ts). */
  bodyBudget: SharedArrayBuffer;
  /** Where uploaded files are kept. */
  files: FileStorage;
  /** Render workers (null: the realm renders everything itself). */
  renders: RenderPool | null;
  /** The other fronts of this process, which hold queues of their own (null: there are none). */
  peers: FrontPeers | null;
}

export interface PublicRequest {
  realm: RealmHandle;
  config: Config;
  queues: EventQueues;
  socketTokens: Grants;
  callAuthorizations: Grants;
  loginLimiter: LoginLimiter;
  files: FileStorage;
  renders: RenderPool | null;
  peers: FrontPeers | null;
  /** Aborted when the client goes away (long-polls stop waiting). */
  signal: AbortSignal;
  /** The client's name, from its User-Agent (Zulip's "client"). */
  client: string;
}

export interface UserRequest extends PublicRequest {
  user: Principal;
}

/** The request of a route whose body is a file upload: the handler receives the file, streamed
 * into the file storage, when it has decided to (its body is not read before). */
export interface UploadRequest extends UserRequest {
  /** Receives the file into the storage and hands it to `record` (which tells the realm about it);
   * should recording fail, the stored file is removed. */
  receiveFile<T>(limits: UploadLimits, record: (file: ReceivedFile) => Promise<T>): Promise<{ file: ReceivedFile; recorded: T }>;
}

/** The request of an incoming webhook: the body as the service sent it and its headers (the
 * parameters are the URL's). */
export interface WebhookRequest extends UserRequest {
  body: Buffer;
  /** A request header, by its name in any case. */
  header(name: string): string | undefined;
}

/** The fields a handler adds to a success response. */
export type Body = object;

/** `next(value)`: at once for a value, once it resolves for a promise (a hot path answers without a
 * promise hop when it can). */
export const onceReady = <T, R>(value: T | Promise<T>, next: (value: T) => R): R | Promise<R> => (value instanceof Promise ? value.then(next) : next(value));

/** A handler's answer that sends the client elsewhere (302) instead of a JSON body. */
export class Redirect {
  constructor(readonly location: string) {}
}

/** A handler's answer that is a file rather than a JSON body (static data the API points to, the
 * web client's files). */
export class FileBody {
  constructor(
    readonly contentType: string,
    readonly body: Buffer,
    /** The Cache-Control header: how long clients may keep it without asking again. */
    readonly cacheControl: string,
  ) {}
}

/** Kept this many seconds without asking again. */
export const cacheFor = (seconds: number): string => `public, max-age=${seconds}`;
/** A file whose name is its content's hash: it never changes, so it is kept for a year. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Asked for again each time (the web client's pages, which name the current hashed files). */
export const REVALIDATE = 'no-cache';

/** A handler's answer that is an HTML page for a person in a browser (the invitation page). */
export class Page {
  constructor(
    readonly html: string,
    readonly status: 200 | 400 = 200,
  ) {}
}

/** A handler's answer that is a stored file, streamed to the client. */
export class FileStream {
  constructor(
    readonly stream: Readable,
    readonly size: number,
    readonly headers: Record<string, string>,
  ) {}
}

/** What running a route yields: the handler's answer, and the parameters it ignored. */
export interface Handled {
  result: Promise<Body> | Body;
  ignored: string[];
}

export interface Route {
  method: Method;
  path: string;
  /** The parameters' schema, schemas/<operation>.ts. */
  schema: ParamSchema;
  auth: AuthKind;
  /** Served at the path itself rather than under /api/v1 (pages and files the web app links to). */
  atRoot?: true;
  /** Answers HTML pages (see `page`). */
  page?: true;
  /** Not rate limited: the event long-poll, which clients repeat as events arrive, and the
   * operator's probes. */
  unlimited?: true;
  /** The body is an upload the handler streams (UploadRequest), not read before the handler runs. */
  upload?: true;
  /** An incoming webhook (WebhookRequest): its body is the service's, not parameters. */
  webhook?: true;
  /** Open to incoming-webhook bots, whose keys every other route refuses (Zulip's
   * allow_incoming_webhooks: sending messages). */
  incomingWebhookBots?: true;
  /** The route's handler behind its validator (compiled on the first call, once per process):
   * raw parameters in, the handler's answer out. The server passes a `UserRequest` to every route
   * whose `auth` is not 'none'. */
  compile(): { run(request: PublicRequest | UserRequest, raw: RawParams): Handled };
}

type Handler<R, P> = (request: R, params: P) => Promise<Body> | Body;

function routeKind<R extends PublicRequest>(auth: AuthKind, kind: Pick<Route, 'upload' | 'webhook'> = {}) {
  // The overload ties a handler's parameter type to the schema it is registered with; the
  // implementation passes the parameters on once ajv has validated them against that schema.
  function define<const S extends ParamSchema>(method: Method, path: string, schema: S, handler: Handler<R, Params<S>>): Route;
  function define(method: Method, path: string, schema: ParamSchema, handler: Handler<R, RawParams>): Route {
    let compiled: ReturnType<Route['compile']> | undefined;
    const compile = () => {
      const validate = compileValidator(schema);
      return {
        run(request: R, raw: RawParams): Handled {
          const ignored = validate(raw);
          return { result: handler(request, raw), ignored };
        },
      };
    };
    return { method, path, schema, auth, ...kind, compile: () => (compiled ??= compile()) };
  }
  return define;
}

export const publicRoute = routeKind<PublicRequest>('none');
/** The same route served outside /api/v1. */
export const atRoot = (route: Route): Route => ({ ...route, atRoot: true });
/** The same route at the root, answering a person in a browser with HTML pages, refusals included
 * (requests its schema refuses still get Zulip's JSON errors). */
export const page = (route: Route): Route => ({ ...route, atRoot: true, page: true });
/** The same route, not rate limited. */
export const unlimited = (route: Route): Route => ({ ...route, unlimited: true });
export const userRoute = routeKind<UserRequest>('user');
export const humanRoute = routeKind<UserRequest>('human');
export const adminRoute = routeKind<UserRequest>('admin');
/** The same route, open to incoming-webhook bots' keys. */
export const forIncomingWebhookBots = (route: Route): Route => ({ ...route, incomingWebhookBots: true });
/** An incoming webhook's route. */
export const webhookRoute = routeKind<WebhookRequest>('webhook', { webhook: true });
/** A user route whose body is one uploaded file. */
export const uploadRoute = routeKind<UploadRequest>('user', { upload: true });
