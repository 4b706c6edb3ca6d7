// Validates responses against Zulip's reference response schemas (test/reference/zulip-openapi.json,
// a copy of the project's reference). OpenAPI schemas are turned into JSON Schema first: $refs
// resolved, allOf merged into one object schema (Zulip puts additionalProperties: false inside one
// allOf branch, which plain JSON Schema would apply to the other branches' fields too), and
// OpenAPI's `nullable` made into a null type.
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import * as assert from 'uvu/assert';

type Schema = { [key: string]: unknown };

const spec = JSON.parse(readFileSync(new URL('../../../test/reference/zulip-openapi.json', import.meta.url), 'utf8')) as Schema;
// Unoptimized code: the reference's largest schemas (register's answer, the events) compile in
// 110-170 ms instead of 320-500 ms each, and a test validates too few bodies for the difference in
// validating to show.
const ajv = new Ajv({ strict: false, allErrors: true, code: { optimize: false } });
const compiled = new Map<string, ValidateFunction>();

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

function resolve(ref: string): Schema {
  let node: unknown = spec;
  for (const part of ref.replace(/^#\//, '').split('/')) node = isSchema(node) ? node[part] : undefined;
  if (!isSchema(node)) throw new Error(`unresolved ${ref}`);
  return node;
}

function normalize(input: Schema, seen: ReadonlySet<string>): Schema {
  if (typeof input.$ref === 'string') {
    // A recursive reference validates as anything; the outer levels are still checked.
    return seen.has(input.$ref) ? {} : normalize(resolve(input.$ref), new Set([...seen, input.$ref]));
  }
  let schema: Schema = { ...input };
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as Schema[]).map((part) => normalize(part, seen));
    delete schema.allOf;
    schema = parts.reduce<Schema>(mergeObjects, schema);
  }
  for (const key of ['items', 'additionalProperties', 'not']) {
    if (isSchema(schema[key])) schema[key] = normalize(schema[key] as Schema, seen);
  }
  for (const key of ['oneOf', 'anyOf']) {
    if (Array.isArray(schema[key])) schema[key] = (schema[key] as Schema[]).map((part) => normalize(part, seen));
  }
  if (isSchema(schema.properties)) {
    schema.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, normalize(v as Schema, seen)]));
  }
  if (schema.nullable === true) {
    delete schema.nullable;
    return { anyOf: [schema, { type: 'null' }] };
  }
  return schema;
}

function mergeObjects(into: Schema, part: Schema): Schema {
  const merged: Schema = { ...into, ...part };
  if (isSchema(into.properties) || isSchema(part.properties)) merged.properties = { ...(into.properties as Schema), ...(part.properties as Schema) };
  const required = [...((into.required as string[]) ?? []), ...((part.required as string[]) ?? [])];
  if (required.length > 0) merged.required = [...new Set(required)];
  if (into.additionalProperties === false || part.additionalProperties === false) merged.additionalProperties = false;
  return merged;
}

/** The JSON Schema of one operation's response for a status code. */
export function responseSchema(operation: string, status = 200): Schema {
  const [method, path] = operation.split(' ') as [string, string];
  const paths = spec.paths as Record<string, Record<string, Schema>>;
  const op = paths[path]?.[method.toLowerCase()];
  const responses = op?.responses as Record<string, Schema> | undefined;
  let response = responses?.[String(status)];
  // Many operations share a response component by reference.
  if (typeof response?.$ref === 'string') response = resolve(response.$ref);
  const content = response?.content as Record<string, Schema> | undefined;
  const schema = content?.['application/json']?.schema;
  if (!isSchema(schema)) throw new Error(`no ${status} response schema for ${operation}`);
  return normalize(schema, new Set());
}

/** Fields the project's spec adds to Zulip's (the spec wins over the reference). */
export interface SpecAdditions {
  /** Extra properties allowed on the top-level object. */
  properties?: Record<string, Schema>;
  /** Where the extra properties go: dotted paths, '' for the top level (the default). */
  at?: string[];
}

/** The parameters of an operation's form body, by name (normalized JSON Schemas). */
export function requestSchema(operation: string): Record<string, Schema> {
  const [method, path] = operation.split(' ') as [string, string];
  const paths = spec.paths as Record<string, Record<string, Schema>>;
  const body = paths[path]?.[method.toLowerCase()]?.requestBody as Schema | undefined;
  const form = ((body?.content as Schema | undefined)?.['application/x-www-form-urlencoded'] as Schema | undefined)?.schema;
  if (!isSchema(form)) throw new Error(`no form body for ${operation}`);
  return normalize(form, new Set()).properties as Record<string, Schema>;
}

/** Asserts that a response body matches the reference schema of its operation. */
export function assertMatchesReference(operation: string, body: unknown, additions: SpecAdditions | SpecAdditions[] = {}, status = 200): void {
  const key = `${operation} ${status} ${JSON.stringify(additions)}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(withAdditions(responseSchema(operation, status), additions));
    compiled.set(key, validate);
  }
  if (!validate(body)) assert.unreachable(`${operation} response does not match the reference: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
}

/** Asserts that a body matches one of the reference's component schemas (error bodies, say). */
export function assertMatchesComponent(name: string, body: unknown, additions: SpecAdditions | SpecAdditions[] = {}): void {
  const key = `#${name} ${JSON.stringify(additions)}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(withAdditions(normalize({ $ref: `#/components/schemas/${name}` }, new Set()), additions));
    compiled.set(key, validate);
  }
  if (!validate(body)) assert.unreachable(`body does not match ${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
}

type EventLike = { type: string; op?: string };

let eventVariants: Schema[] | undefined;

function enumOf(schema: unknown): unknown[] | undefined {
  return isSchema(schema) && Array.isArray(schema.enum) ? schema.enum : undefined;
}

/** Events of Zulip versions newer than the reference (feature level 420), as Zulip's API
 * documentation describes them: the custom emoji events of individual_emoji_changes (level 491). */
const newerEvents: Record<string, Schema> = {
  'realm_emoji/add': {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      type: { enum: ['realm_emoji'] },
      op: { enum: ['add'] },
      emoji: { $ref: '#/components/schemas/RealmEmoji' },
    },
    required: ['id', 'type', 'op', 'emoji'],
    additionalProperties: false,
  },
  'realm_emoji/update_one': {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      type: { enum: ['realm_emoji'] },
      op: { enum: ['update_one'] },
      emoji_id: { type: 'string' },
      data: { type: 'object', properties: { deactivated: { type: 'boolean' } }, additionalProperties: false },
    },
    required: ['id', 'type', 'op', 'emoji_id', 'data'],
    additionalProperties: false,
  },
};

/** Asserts that an event matches the reference variant of its type and op (GET /events). */
export function assertEventMatchesReference(event: EventLike, additions: SpecAdditions | SpecAdditions[] = {}): void {
  eventVariants ??= (((responseSchema('GET /events').properties as Schema).events as Schema).items as Schema).oneOf as Schema[];
  const label = `${event.type}/${event.op ?? ''}`;
  const newer = newerEvents[label];
  const variant = newer
    ? normalize(newer, new Set())
    : eventVariants.find((candidate) => {
        const properties = candidate.properties as Schema | undefined;
        const types = enumOf(properties?.type);
        const ops = enumOf(properties?.op);
        return types?.includes(event.type) && (ops === undefined || ops.includes(event.op));
      });
  if (!variant) return assert.unreachable(`no reference schema for event ${label}`);
  const key = `event ${label} ${JSON.stringify(additions)}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(withAdditions(variant, additions));
    compiled.set(key, validate);
  }
  if (!validate(event)) assert.unreachable(`event ${label} does not match the reference: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(event)}`);
}

/** A copy of a schema that also allows the spec's additional fields at each path of
 * `additions.at`: '' is the top level, 'person' a property, 'realm_users[]' an array's items. */
function withAdditions(schema: Schema, additions: SpecAdditions | SpecAdditions[]): Schema {
  let result = schema;
  for (const { properties, at } of Array.isArray(additions) ? additions : [additions]) {
    if (!properties) continue;
    for (const path of at ?? ['']) result = addAt(result, path === '' ? [] : path.split('.'), properties);
  }
  return result;
}

function addAt(schema: Schema, path: string[], extra: Record<string, Schema>): Schema {
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: (schema.anyOf as Schema[]).map((part) => addAt(part, path, extra)) };
  const [head, ...rest] = path;
  if (head === undefined) return { ...schema, properties: { ...(schema.properties as Schema), ...extra } };
  const properties = schema.properties as Schema;
  const name = head.replace(/\[\]$/, '');
  const target = properties[name] as Schema;
  const replaced = head.endsWith('[]') ? { ...target, items: addAt(target.items as Schema, rest, extra) } : addAt(target, rest, extra);
  return { ...schema, properties: { ...properties, [name]: replaced } };
}

/** The spec's User-object fields that Zulip's reference (feature level <= 420) lacks. */
export const specUserFields = {
  properties: {
    is_imported_stub: { type: 'boolean' },
    is_deleted: { type: 'boolean' },
    bot_type: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
    bot_owner_id: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
  },
} satisfies SpecAdditions;

/** The spec's linkifier fields that Zulip's reference lacks; `at` names where the linkifiers are. */
export const specLinkifierFields = (at: string) =>
  ({
    properties: { reverse_template: { type: 'string' }, alternative_url_templates: { type: 'array', items: { type: 'string' } } },
    at: [at],
  }) satisfies SpecAdditions;

/** register's fields the spec adds: has_provider_token (Zulip's has_zoom_token, renamed). */
export const specRegisterFields = { properties: { has_provider_token: { type: 'boolean' } } } satisfies SpecAdditions;
