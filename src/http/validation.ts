// Request validation: each operation's JSON Schema (schemas/<operation>.ts) is compiled by ajv once
// per process, when its route is first used, and the handler's parameter type is derived from the
// same schema. Parameters typed as arrays or objects arrive JSON-encoded in form fields and are
// decoded first; form strings are coerced to booleans and integers by ajv.
import { Ajv, type ErrorObject } from 'ajv';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { errors, type ApiError } from '../errors.js';
import { parseClientJson } from './json.js';
import type { RawParams } from './params.js';

/** An operation's parameters: an object schema, written `as const` so its type is known. */
export interface ParamSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, JSONSchema>>;
  readonly required?: readonly string[];
}

/** The parameters a handler receives once they are validated: defaults filled in (ajv's
 * useDefaults), so a property with a default is always present. (The conditional defers the
 * conversion until S is a concrete schema; over the generic constraint it is too deep for tsc.) */
export type Params<S extends ParamSchema> = [S] extends [JSONSchema] ? FromSchema<S> : never;

/** Validates and normalizes params (path parameters included) in place; answers the names of
 * the parameters the operation does not support, which are removed. */
export type Validator = (params: RawParams) => string[];

// ajv's optimizing pass over the generated code took three quarters of compiling the 142 routes'
// validators (1.1-1.6 s of every start on this machine, 0.32 s without it); the unoptimized
// validators measured as fast (0.4-0.8 µs for a message send's parameters).
const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, strict: true, allowUnionTypes: true, code: { optimize: false } });

function typesOf(schema: JSONSchema): string[] {
  if (typeof schema === 'boolean') return [];
  const own = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  return [...own, ...[...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].flatMap(typesOf)];
}

/** Zulip's way of naming a nested parameter: `subscriptions[0]["name"]`. */
function parameterName(error: ErrorObject): string {
  const [first, ...rest] = error.instancePath.split('/').slice(1);
  const base = first ?? '';
  return base + rest.map((part) => (/^\d+$/.test(part) ? `[${part}]` : `["${part}"]`)).join('');
}

const typeNames: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  string: 'a string',
  array: 'a list',
  object: 'a dict',
};

export function validationError(error: ErrorObject): ApiError {
  if (error.keyword === 'required') return errors.missingArgument(String(error.params.missingProperty));
  const name = parameterName(error);
  switch (error.keyword) {
    case 'type': {
      const expected = String(error.params.type).split(',')[0]!;
      return errors.badRequest(`${name} is not ${typeNames[expected] ?? expected}`);
    }
    case 'maxLength':
      return errors.badRequest(`${name} is too long (limit: ${String(error.params.limit)} characters)`);
    case 'minLength':
      return errors.badRequest(`${name} cannot be blank`);
    default:
      return errors.invalidArgument(name);
  }
}

export function compileValidator(schema: ParamSchema): Validator {
  const validate = ajv.compile(schema);
  const properties = new Map(Object.entries(schema.properties));
  // Arrays, objects and null arrive JSON-encoded in form fields.
  const jsonEncoded = new Set(
    [...properties].filter(([, property]) => typesOf(property).some((type) => type === 'array' || type === 'object' || type === 'null')).map(([key]) => key),
  );
  const validator: Validator = (params) => {
    const ignored: string[] = [];
    for (const key of Object.keys(params)) {
      if (!properties.has(key)) {
        ignored.push(key);
        delete params[key];
      } else if (jsonEncoded.has(key) && typeof params[key] === 'string') {
        params[key] = decodeJson(key, params[key], typesOf(properties.get(key)!).includes('string'));
      }
    }
    if (!validate(params)) throw validationError(validate.errors![0]!);
    return ignored;
  };
  return validator;
}

/** What JSON text starts with, after any whitespace. Text that does not cannot be JSON, and a plain
 * string (a channel's name in `to`, say) is kept without the parse's exception, which costs more
 * than the rest of the request's validation. */
const JSON_START = /^\s*[[{"\d\-tfn]/;

function decodeJson(key: string, value: string, stringAllowed: boolean): unknown {
  if (stringAllowed && !JSON_START.test(value)) return value;
  try {
    return parseClientJson(value);
  } catch {
    if (stringAllowed) return value;
    throw errors.malformedJson(key);
  }
}
