// A benchmark's client as lean as a client can be, for latencies that are the server's: one
// kept-alive connection, each request written as one string built by hand (its form body encoded
// by the caller, with the test client's formEncode), the answer read by its Content-Length and parsed as JSON. Node's http
// client and the test helpers' form encoding cost ~0.8 ms of a 1,000-ID request on this machine, on
// the cores the server runs on.
import { connect, type Socket } from 'node:net';

export interface LeanResponse {
  status: number;
  body: Record<string, unknown>;
}

const HEADER_END = Buffer.from('\r\n\r\n');

export class LeanClient {
  private received: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (response: LeanResponse) => void; reject: (error: Error) => void } | null = null;

  private constructor(
    private readonly socket: Socket,
    private readonly headers: string,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('the server closed the connection')));
  }

  /** Connects to the server of `baseUrl` (http://host:port) as a user, by e-mail and API key. */
  static open(baseUrl: string, email: string, apiKey: string): Promise<LeanClient> {
    const url = new URL(baseUrl);
    const authorization = Buffer.from(`${email}:${apiKey}`).toString('base64');
    const headers = `Host: ${url.host}\r\nAuthorization: Basic ${authorization}\r\nContent-Type: application/x-www-form-urlencoded\r\n`;
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.off('error', reject);
        resolve(new LeanClient(socket, headers));
      });
      socket.once('error', reject);
    });
  }

  /** POSTs a form body (formEncode's) to an API path (`/messages/flags`); one request at a time. */
  post(path: string, body: string): Promise<LeanResponse> {
    if (this.waiting) throw new Error('one request at a time');
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(`POST /api/v1${path} HTTP/1.1\r\n${this.headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private read(chunk: Buffer): void {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    const headerEnd = this.received.indexOf(HEADER_END);
    if (headerEnd < 0) return;
    const head = this.received.subarray(0, headerEnd).toString('latin1');
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) return this.fail(new Error(`an answer without Content-Length: ${head}`));
    const end = headerEnd + HEADER_END.length + Number(length[1]);
    if (this.received.length < end) return;
    const text = this.received.subarray(headerEnd + HEADER_END.length, end).toString('utf8');
    this.received = this.received.subarray(end);
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve({ status: Number(head.slice(9, 12)), body: JSON.parse(text) as Record<string, unknown> });
  }

  private fail(error: Error): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(error);
  }
}
