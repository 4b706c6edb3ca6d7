// The shape of one route-table entry and of the request a handler sees.
import type { Config } from '../config.js';
import type { LoginLimiter } from '../auth/loginLimiter.js';
import type { RateLimiter } from './rateLimit.js';
import type { EventQueues } from '../events/queues.js';
import type { Grants } from '../auth/grants.js';
import type { RealmActor } from '../realm/actor.js';
import type { Realms } from '../realm/registry.js';
import type { Principal } from '../realm/commands/auth.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Who may call a route: anyone, any authenticated user, or organization administrators. */
/** Who may call a route: anyone, any user, users but not bots (Zulip's human_users_only), administrators. */
export type AuthKind = 'none' | 'user' | 'human' | 'admin';

/** What every handler can reach. */
export interface ServerContext {
  config: Config;
  realms: Realms;
  queues: EventQueues;
  /** Single-use tokens that open the event WebSocket. */
  socketTokens: Grants;
  /** The `state` of video providers' OAuth flows in progress. */
  callAuthorizations: Grants;
  loginLimiter: LoginLimiter;
  rateLimiter: RateLimiter;
}

export interface PublicRequest {
  realm: RealmActor;
  config: Config;
  queues: EventQueues;
  socketTokens: Grants;
  callAuthorizations: Grants;
  loginLimiter: LoginLimiter;
  /** Aborted when the client goes away (long-polls stop waiting). */
  signal: AbortSignal;
  /** The client's name, from its User-Agent (Zulip's "client"). */
  client: string;
}

export interface UserRequest extends PublicRequest {
  user: Principal;
}

/** The fields a handler adds to a success response. */
export type Body = object;

/** A handler's answer that sends the client elsewhere (302) instead of a JSON body. */
export class Redirect {
  constructor(readonly location: string) {}
}

/** A handler's answer that is a file rather than a JSON body (static data the API points to). */
export class FileBody {
  constructor(
    readonly contentType: string,
    readonly body: Buffer,
    /** How long clients may keep it without asking again. */
    readonly maxAgeSeconds: number,
  ) {}
}

export interface Route {
  method: Method;
  path: string;
  /** The parameter schema, schemas/<schema>.json. */
  schema: string;
  auth: AuthKind;
  /** Served at the path itself rather than under /api/v1 (pages and files the web app links to). */
  atRoot?: true;
  /** Not counted against the user's rate limit (the event long-poll, which clients repeat as
   * events arrive). */
  unlimited?: true;
  // Params were validated against `schema` before the handler runs; each handler names their type.
  handler(request: PublicRequest | UserRequest, params: never): Promise<Body> | Body;
}

type Handler<R, P> = (request: R, params: P) => Promise<Body> | Body;

function routeKind<R extends PublicRequest>(auth: AuthKind) {
  return <P>(method: Method, path: string, schema: string, handler: Handler<R, P>): Route => ({ method, path, schema, auth, handler });
}

export const publicRoute = routeKind<PublicRequest>('none');
/** The same route served outside /api/v1. */
export const atRoot = (route: Route): Route => ({ ...route, atRoot: true });
/** The same route, not rate limited. */
export const unlimited = (route: Route): Route => ({ ...route, unlimited: true });
export const userRoute = routeKind<UserRequest>('user');
export const humanRoute = routeKind<UserRequest>('human');
export const adminRoute = routeKind<UserRequest>('admin');
