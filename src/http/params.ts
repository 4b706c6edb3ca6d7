// Turns a request's query string and body into one flat parameter object, like Zulip: parameters
// come from the query string and the body for every method, the body winning. Bodies may be
// form-urlencoded, multipart/form-data (as the zulip-js client sends) or JSON.
import { parse as parseQuery } from 'fast-querystring';
import { errors } from '../errors.js';
import { parseClientJson } from './json.js';

export type RawParams = Record<string, unknown>;

function lastValues(parsed: Record<string, unknown>): RawParams {
  const out: RawParams = Object.create(null) as RawParams;
  for (const [key, value] of Object.entries(parsed)) out[key] = Array.isArray(value) ? value[value.length - 1] : value;
  return out;
}

async function parseMultipart(body: Buffer, contentType: string): Promise<RawParams> {
  // Node's own fetch implementation (undici) parses multipart bodies.
  const form = await new Response(body, { headers: { 'content-type': contentType } }).formData().catch(() => {
    throw errors.badRequest('Malformed multipart body');
  });
  const out: RawParams = Object.create(null) as RawParams;
  for (const [key, value] of form.entries()) if (typeof value === 'string') out[key] = value;
  return out;
}

function parseJsonBody(body: Buffer): RawParams {
  let parsed: unknown;
  try {
    parsed = parseClientJson(body.toString('utf8'));
  } catch {
    throw errors.malformedJsonBody();
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw errors.malformedJsonBody();
  return Object.assign(Object.create(null) as RawParams, parsed);
}

/** The parameters; at once, but for a multipart body (parsed asynchronously). */
export function readParams(query: string, body: Buffer, contentType: string): RawParams | Promise<RawParams> {
  const fromQuery = query === '' ? (Object.create(null) as RawParams) : lastValues(parseQuery(query));
  if (body.length === 0) return fromQuery;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'multipart/form-data') return parseMultipart(body, contentType).then((fromBody) => Object.assign(fromQuery, fromBody));
  return Object.assign(fromQuery, type === 'application/json' ? parseJsonBody(body) : lastValues(parseQuery(body.toString('utf8'))));
}
