// The tool's HTTP client of a Zulip-API server (http or https, through Node's fetch): Basic auth,
// parameters form-encoded as Zulip's clients send them; an answer is its status and JSON body, a
// failure to get one an ApiFailure naming why.
import { formEncode, type Params } from '../../test/helpers/client.js';

export interface Account {
  email: string;
  apiKey: string;
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** A request that got no answer (refused, reset, timed out). */
export class NetworkFailure extends Error {
  constructor(readonly code: string) {
    super(`network ${code}`);
  }
}

/** How long a request may go unanswered before it counts as failed ("network TimeoutError"). */
const REQUEST_TIMEOUT_MS = 30_000;

export class Api {
  private readonly auth: string | undefined;

  constructor(
    readonly baseUrl: string,
    readonly account?: Account,
  ) {
    this.auth = account ? `Basic ${Buffer.from(`${account.email}:${account.apiKey}`).toString('base64')}` : undefined;
  }

  as(account: Account): Api {
    return new Api(this.baseUrl, account);
  }

  get authorization(): Record<string, string> {
    return this.auth ? { Authorization: this.auth } : {};
  }

  /** One request; `signal` replaces the usual timeout (a long-poll waits longer, and is aborted). */
  async call(method: string, path: string, params: Params = {}, signal: AbortSignal = AbortSignal.timeout(REQUEST_TIMEOUT_MS)): Promise<Answer> {
    const encoded = formEncode(params);
    const inQuery = method === 'GET' || method === 'DELETE';
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}/api/v1${path}${inQuery && encoded ? `?${encoded}` : ''}`, {
        method,
        headers: { ...this.authorization, ...(inQuery ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }) },
        ...(inQuery ? {} : { body: encoded }),
        signal,
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      throw new NetworkFailure(cause?.code ?? (error as Error).name);
    }
    const text = await response.text().catch(() => '');
    try {
      return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
    } catch {
      return { status: response.status, body: { result: 'error', code: 'NOT_JSON', msg: text.slice(0, 200) } };
    }
  }

  /** A call that must succeed (setup): throws with the server's message otherwise. */
  async ok(method: string, path: string, params: Params = {}): Promise<Record<string, unknown>> {
    const answer = await this.call(method, path, params);
    if (answer.status !== 200) throw new Error(`${method} ${path} on ${this.baseUrl}: ${answer.status} ${String(answer.body.code ?? '')} ${String(answer.body.msg ?? '')}`.trim());
    return answer.body;
  }
}

/** An error's key in a report: "400 BAD_REQUEST", "network ECONNRESET". */
export function errorKey(answerOrError: Answer | unknown): string {
  if (answerOrError instanceof NetworkFailure) return answerOrError.message;
  if (typeof answerOrError === 'object' && answerOrError !== null && 'status' in answerOrError && 'body' in answerOrError) {
    const { status, body } = answerOrError as Answer;
    return `${status} ${String(body.code ?? 'UNKNOWN')}`;
  }
  return `tool ${(answerOrError as Error).message ?? String(answerOrError)}`;
}
