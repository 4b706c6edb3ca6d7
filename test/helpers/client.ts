// A small HTTP client for the API under test: form-encodes parameters the way Zulip clients do
// (arrays and objects JSON-encoded) and returns status, headers and the parsed JSON body.
import { Agent, request } from 'node:http';

export interface Credentials {
  email: string;
  apiKey: string;
}

export type Params = Record<string, unknown>;

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export function formEncode(params: Params): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    search.append(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return search.toString();
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends one request on its own connection (or the agent's) and returns the answer as it came. A
 * body is sent with its Content-Length whatever the method (Node sends none for a GET's or a
 * DELETE's body). */
export function sendRaw(baseUrl: string, raw: RawRequest, agent: Agent | false = false): Promise<RawResponse> {
  const length = raw.body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(raw.body)) };
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${raw.path}`, { method: raw.method, headers: { ...length, ...raw.headers }, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(raw.body);
  });
}

/** Sends one request on its own connection (or the agent's) and parses the JSON answer. */
export async function rawRequest(baseUrl: string, raw: RawRequest, agent: Agent | false = false): Promise<ApiResponse> {
  const { status, headers, text } = await sendRaw(baseUrl, raw, agent);
  try {
    return { status, headers, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    throw new Error(`not JSON (${status}): ${text}`);
  }
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly credentials?: Credentials,
    /** The Host header, which names the realm (a subdomain of the external host); by default the
     * server's address, which names the default realm. */
    readonly host?: string,
    /** Requests go each on a connection of its own, unless on this agent's. */
    private readonly agent: Agent | false = false,
  ) {}

  get email(): string {
    if (!this.credentials) throw new Error('anonymous client');
    return this.credentials.email;
  }

  /** The same server with other credentials. */
  withCredentials(credentials: Credentials | undefined): ApiClient {
    return new ApiClient(this.baseUrl, credentials, this.host, this.agent);
  }

  /** The same client on one kept-alive connection, as a real client holds its own: benchmarks'
   * latencies then leave out opening a connection per request. */
  keptAlive(): ApiClient {
    return new ApiClient(this.baseUrl, this.credentials, this.host, new Agent({ keepAlive: true, maxSockets: 1 }));
  }

  authHeader(): Record<string, string> {
    if (!this.credentials) return {};
    const token = Buffer.from(`${this.credentials.email}:${this.credentials.apiKey}`).toString('base64');
    return { Authorization: `Basic ${token}` };
  }

  /** The headers every request of this client carries: its credentials and its realm. */
  identity(): Record<string, string> {
    return { ...this.authHeader(), ...(this.host === undefined ? {} : { Host: this.host }) };
  }

  /** GET and DELETE send parameters in the query string, the rest as a form body. */
  call(method: string, path: string, params: Params = {}): Promise<ApiResponse> {
    const encoded = formEncode(params);
    const inQuery = method === 'GET' || method === 'DELETE';
    return rawRequest(this.baseUrl, {
      method,
      path: `/api/v1${path}${inQuery && encoded ? `?${encoded}` : ''}`,
      headers: { ...this.identity(), ...(inQuery ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }) },
      body: inQuery ? undefined : encoded,
    }, this.agent);
  }

  get = (path: string, params?: Params) => this.call('GET', path, params);
  post = (path: string, params?: Params) => this.call('POST', path, params);
  patch = (path: string, params?: Params) => this.call('PATCH', path, params);
  delete = (path: string, params?: Params) => this.call('DELETE', path, params);
}
