// Generated bad requests to one route of the route table: its parameters (from its schema) present
// or missing, each fitting its type with nasty content or not fitting at all, unknown and repeated
// parameters added, path parameters naming anything or nothing, in any of the four encodings, from
// an administrator or a member.
import fc from 'fast-check';
import type { Route } from '../../src/http/route.js';
import type { RawRequest } from './client.js';
import { deepInside, fitting, idValue, nastyString, unfitting } from './badValues.js';
import { paramSchemaOf, pathParamsOf, propertiesOf, urlOf, type PathParam, type PropertySchema } from './routeTable.js';
import type { Targets } from './targets.js';
import { encodeRequest, encodings, type Encoding, type Entry, type WireValue } from './wire.js';

export const actors = ['administrator', 'member'] as const;

export interface BadRequest {
  route: Route;
  actor: (typeof actors)[number];
  encoding: Encoding;
  path: Record<string, string | number>;
  entries: Entry[];
}

const extraNames = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'a[b]', 'narrow[0]', '\u00e9', 'x'.repeat(300)), fc.string({ maxLength: 10 }));

const value = (name: string, property: PropertySchema, targets: Targets): fc.Arbitrary<WireValue> => {
  const fits = fitting(property, targets, name);
  return fc.oneof({ weight: 6, arbitrary: fits.map((json) => ({ json })) }, { weight: 2, arbitrary: unfitting }, { weight: 1, arbitrary: deepInside(fits) });
};

const pathValue = (param: PathParam, targets: Targets): fc.Arbitrary<string | number> =>
  param.integer
    ? fc.oneof({ weight: 5, arbitrary: idValue(targets) }, { weight: 1, arbitrary: fc.constantFrom('abc', '-1', '1.5', '9'.repeat(16), '%00', ' 1') })
    : fc.oneof(nastyString.map((text) => text.slice(0, 2_000)), fc.constantFrom(...targets.names));

export function badRequests(route: Route, targets: Targets): fc.Arbitrary<BadRequest> {
  const schema = paramSchemaOf(route);
  const pathParams = pathParamsOf(route);
  const inPath = new Set(pathParams.map(({ name }) => name));
  const properties = propertiesOf(schema).filter(([name]) => !inPath.has(name));
  const required = new Set(schema.required ?? []);
  // A required parameter is left out one time in eight, an optional one every other time.
  const present = properties.map(([name, property]) =>
    fc.option(value(name, property, targets).map((wire): Entry => [name, wire]), { nil: undefined, freq: required.has(name) ? 8 : 2 }),
  );
  const repeated = properties.length === 0 ? fc.constant([]) : fc.array(fc.constantFrom(...properties).chain(([name, property]) => value(name, property, targets).map((wire): Entry => [name, wire])), { maxLength: 1 });
  const extra = fc.array(fc.tuple(extraNames, fc.oneof(fc.jsonValue({ maxDepth: 1 }).map((json) => ({ json })), unfitting)), { maxLength: 2 });
  return fc
    .record({
      actor: fc.constantFrom(...actors),
      encoding: fc.constantFrom(...encodings),
      path: fc.record(Object.fromEntries(pathParams.map((param) => [param.name, pathValue(param, targets)]))),
      present: fc.tuple(...present),
      repeated,
      extra,
    })
    .map(({ actor, encoding, path, present: entries, repeated: again, extra: unknown }) => ({
      route,
      actor,
      encoding,
      path,
      entries: [...entries.filter((entry) => entry !== undefined), ...again, ...unknown],
    }));
}

/** Longer query strings go in a form body instead: uWebSockets.js accepts URLs of about 100 KB
 * (docs/limits-and-security.md), and the body is where long parameters belong. */
const MAX_QUERY_BYTES = 64 * 1024;

export function toRawRequest(request: BadRequest, headers: Record<string, string>): RawRequest {
  const url = urlOf(request.route, request.path);
  const raw = encodeRequest(request.route.method, url, request.entries, request.encoding, headers);
  return request.encoding === 'query' && raw.path.length > MAX_QUERY_BYTES ? encodeRequest(request.route.method, url, request.entries, 'form', headers) : raw;
}

const preview = (value: WireValue): string => {
  const text = 'bytes' in value ? `bytes ${value.bytes.toString('hex')}` : 'text' in value ? `text ${value.text}` : JSON.stringify(value.json) ?? 'undefined';
  return text.length > 60 ? `${text.slice(0, 60)}… (${text.length} chars)` : text;
};

/** How failure messages name a request. */
export const describeRequest = (request: BadRequest): string =>
  `${request.actor}: ${request.route.method} ${urlOf(request.route, request.path).slice(0, 120)} as ${request.encoding} {${request.entries.map(([name, wire]) => `${JSON.stringify(name.slice(0, 40))}: ${preview(wire)}`).join(', ')}}`;
