// What tests read of the route table (src/api/routes.ts): a route's parameter schema, its path
// parameters and the URL of one of its requests, so that tests run over every route, new ones
// included.
import type { Route } from '../../src/http/route.js';
import { API_PREFIX } from '../../src/http/server.js';
import type { JSONSchema } from 'json-schema-to-ts';
import type { ParamSchema } from '../../src/http/validation.js';
import { percentEncode } from './wire.js';

/** A parameter's schema as tests read it: an object schema (`true`, anything, reads as `{}`). */
export type PropertySchema = Exclude<JSONSchema, boolean>;
export const asObjectSchema = (schema: JSONSchema | readonly JSONSchema[] | undefined): PropertySchema =>
  schema === undefined || typeof schema === 'boolean' || Array.isArray(schema) ? {} : (schema as PropertySchema);

/** A route's parameters and their schemas. */
export const propertiesOf = (schema: ParamSchema): [string, PropertySchema][] =>
  Object.entries(schema.properties).map(([name, property]) => [name, asObjectSchema(property)]);

/** The one place tests get a route's parameter schema. */
export const paramSchemaOf = (route: Route): ParamSchema => route.schema;

export interface PathParam {
  name: string;
  /** `{name:int}`: an integer segment. */
  integer: boolean;
}

export function pathParamsOf(route: Route): PathParam[] {
  return [...route.path.matchAll(/\{([a-z_]+)(:int)?\}/g)].map((match) => ({ name: match[1]!, integer: match[2] !== undefined }));
}

/** The URL path of a request to the route, its path parameters filled in. */
export function urlOf(route: Route, values: Record<string, string | number>): string {
  const path = route.path.replace(/\{([a-z_]+)(?::int)?\}/g, (_, name: string) => percentEncode(Buffer.from(String(values[name]))));
  return route.atRoot ? path : `${API_PREFIX}${path}`;
}

/** `GET /users/{user_id}`, as failure messages name a route. */
export const routeName = (route: Route): string => `${route.method} ${route.path}`;
