// Calls to Parley's REST API (/api/v1) with the signed-in user's key: parameters go in the query
// string (GET, DELETE) or a form body, arrays and objects JSON-encoded, as Zulip's clients send them.

export interface Credentials {
  email: string;
  apiKey: string;
}

/** An error answer in Zulip's shape, or the network failing (code NETWORK, status 0). */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export type Params = Record<string, string | number | boolean | object | undefined>;

function encode(params: Params): string {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) form.set(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return form.toString();
}

/** Base64 of the text's UTF-8 bytes (btoa takes only Latin-1). */
const base64 = (text: string): string => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** One API call; resolves with the success body, rejects with an ApiError. */
export async function call<T>(method: Method, path: string, params: Params = {}, credentials?: Credentials, signal?: AbortSignal): Promise<T> {
  // Marks the request as a web page's: a refusal then carries no Basic challenge, which would make
  // the browser ask for a password itself.
  const headers: Record<string, string> = { 'X-Requested-With': 'XMLHttpRequest' };
  if (credentials) headers.Authorization = `Basic ${base64(`${credentials.email}:${credentials.apiKey}`)}`;
  const query = encode(params);
  const inQuery = method === 'GET' || method === 'DELETE';
  if (!inQuery) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}${inQuery && query ? `?${query}` : ''}`, { method, headers, body: inQuery ? null : query, ...(signal ? { signal } : {}) });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError('NETWORK', 'The server cannot be reached.', 0);
  }
  const body = (await response.json().catch(() => ({ result: 'error', msg: `HTTP ${response.status}`, code: 'BAD_RESPONSE' }))) as { result: string; msg: string; code?: string };
  if (body.result !== 'success') throw new ApiError(body.code ?? 'BAD_REQUEST', body.msg, response.status);
  return body as T;
}

/** The API as one signed-in user calls it. */
export class Api {
  constructor(readonly credentials: Credentials) {}

  get<T>(path: string, params?: Params, signal?: AbortSignal): Promise<T> {
    return call<T>('GET', path, params, this.credentials, signal);
  }
  post<T = unknown>(path: string, params?: Params): Promise<T> {
    return call<T>('POST', path, params, this.credentials);
  }
  patch<T = unknown>(path: string, params?: Params): Promise<T> {
    return call<T>('PATCH', path, params, this.credentials);
  }
  delete<T = unknown>(path: string, params?: Params): Promise<T> {
    return call<T>('DELETE', path, params, this.credentials);
  }
}
