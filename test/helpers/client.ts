// A small HTTP client for the API under test: form-encodes parameters the way Zulip clients do
// (arrays and objects JSON-encoded) and returns status, headers and the parsed JSON body.
import { request } from 'node:http';

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

/** Sends one request on its own connection and parses the JSON answer. */
export function rawRequest(baseUrl: string, raw: RawRequest): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${raw.path}`, { method: raw.method, headers: raw.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as Record<string, unknown> });
        } catch {
          reject(new Error(`not JSON (${res.statusCode}): ${text}`));
        }
      });
    });
    req.on('error', reject);
    req.end(raw.body);
  });
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly credentials?: Credentials,
  ) {}

  get email(): string {
    if (!this.credentials) throw new Error('anonymous client');
    return this.credentials.email;
  }

  /** The same server with other credentials. */
  withCredentials(credentials: Credentials | undefined): ApiClient {
    return new ApiClient(this.baseUrl, credentials);
  }

  authHeader(): Record<string, string> {
    if (!this.credentials) return {};
    const token = Buffer.from(`${this.credentials.email}:${this.credentials.apiKey}`).toString('base64');
    return { Authorization: `Basic ${token}` };
  }

  /** GET and DELETE send parameters in the query string, the rest as a form body. */
  call(method: string, path: string, params: Params = {}): Promise<ApiResponse> {
    const encoded = formEncode(params);
    const inQuery = method === 'GET' || method === 'DELETE';
    return rawRequest(this.baseUrl, {
      method,
      path: `/api/v1${path}${inQuery && encoded ? `?${encoded}` : ''}`,
      headers: { ...this.authHeader(), ...(inQuery ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }) },
      body: inQuery ? undefined : encoded,
    });
  }

  get = (path: string, params?: Params) => this.call('GET', path, params);
  post = (path: string, params?: Params) => this.call('POST', path, params);
  patch = (path: string, params?: Params) => this.call('PATCH', path, params);
  delete = (path: string, params?: Params) => this.call('DELETE', path, params);
}
