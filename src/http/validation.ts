// Request validation: each operation's JSON Schema (schemas/<name>.json) is compiled by ajv once
// per process, when the first route table is built. Parameters typed as arrays or objects arrive JSON-encoded in form
// fields and are decoded first; form strings are coerced to booleans and integers by ajv.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { errors, type ApiError } from '../errors.js';
import type { RawParams } from './params.js';

export interface ParamSchema {
  type: 'object';
  properties: Record<string, PropertySchema>;
  required?: string[];
}

interface PropertySchema {
  type?: string | string[];
  oneOf?: PropertySchema[];
  anyOf?: PropertySchema[];
  [keyword: string]: unknown;
}

export interface Validator {
  /** Validates and normalizes params (path parameters included) in place; returns the names of
   * the parameters the operation does not support, which are removed. */
  (params: RawParams): string[];
}

const schemaDir = new URL('../../../schemas/', import.meta.url);
const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, strict: true, allowUnionTypes: true });

function typesOf(schema: PropertySchema): string[] {
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

const compiled = new Map<string, Validator>();

export function compileValidator(name: string): Validator {
  let validator = compiled.get(name);
  if (!validator) compiled.set(name, (validator = compileSchemaFile(name)));
  return validator;
}

function compileSchemaFile(name: string): Validator {
  const schema = JSON.parse(readFileSync(new URL(`${name}.json`, schemaDir), 'utf8')) as ParamSchema;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (cause) {
    throw new Error(`schema ${name}.json does not compile`, { cause });
  }
  const properties = new Map(Object.entries(schema.properties));
  // Arrays, objects and null arrive JSON-encoded in form fields.
  const jsonEncoded = new Set(
    [...properties].filter(([, property]) => typesOf(property).some((type) => type === 'array' || type === 'object' || type === 'null')).map(([key]) => key),
  );
  return (params) => {
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
}

function decodeJson(key: string, value: string, stringAllowed: boolean): unknown {
  try {
    return JSON.parse(value);
  } catch {
    if (stringAllowed) return value;
    throw errors.malformedJson(key);
  }
}
