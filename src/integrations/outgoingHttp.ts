// The one HTTP request of an outgoing webhook: to a URL a user chose, so it never reaches the
// server's own network unless the operator allows it. The address is checked where the socket
// connects (request-filtering-agent checks each DNS answer and literal address, so a name that
// resolves to a private address, or is rebound to one between checks, is refused), redirects are
// not followed, the answer is read up to a bound, and the whole exchange has a deadline.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import type { ServiceRequest } from './outgoing.js';

/** How much of a service's answer is read (a reply is a message: far less). */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface ServicePolicy {
  /** IPs and CIDRs allowed besides public addresses (an operator's own bot servers). */
  allow: readonly string[];
  timeoutMs: number;
}

/** Why a request got no answer: `retry` for a timeout or a connection that failed, not for an
 * address the policy refuses. */
export class ServiceUnreachable extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

/** Posts the request; answers the status and the body's text, or throws ServiceUnreachable. */
export function postToService(request: ServiceRequest, policy: ServicePolicy): Promise<{ status: number; text: string }> {
  const url = new URL(request.url);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return Promise.reject(new ServiceUnreachable(`The URL's scheme ${url.protocol} is not http or https.`, false));
  // The request and its agent from the same parsed scheme (an "HTTPS://" URL is https for both).
  const secure = url.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  const filter = { allowIPAddressList: [...policy.allow] };
  const agent = secure ? new RequestFilteringHttpsAgent(filter) : new RequestFilteringHttpAgent(filter);
  return new Promise((resolve, reject) => {
    const outgoing = send(url, { method: 'POST', agent, timeout: policy.timeoutMs, headers: { 'Content-Type': request.contentType, 'Content-Length': Buffer.byteLength(request.body), 'User-Agent': 'ParleyOutgoingWebhook' } }, (answer: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      answer.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
        else outgoing.destroy(new ServiceUnreachable('The answer was larger than 1 MiB.', false));
      });
      // An answer cut short is no answer: it is asked for again.
      answer.on('close', () => (answer.complete ? resolve({ status: answer.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }) : reject(new ServiceUnreachable('The answer was cut short.', true))));
      answer.on('error', () => undefined);
    });
    const deadline = setTimeout(() => outgoing.destroy(new ServiceUnreachable('A timeout occurred.', true)), policy.timeoutMs);
    outgoing.on('timeout', () => outgoing.destroy(new ServiceUnreachable('A timeout occurred.', true)));
    outgoing.on('error', (error) => {
      clearTimeout(deadline);
      if (error instanceof ServiceUnreachable) reject(error);
      else if (/is not allowed/.test(error.message)) reject(new ServiceUnreachable('The URL configured for the webhook is for a private or disallowed network.', false));
      else reject(new ServiceUnreachable(`The request failed: ${error.message}`, true));
    });
    outgoing.on('close', () => clearTimeout(deadline));
    outgoing.end(request.body);
  });
}
