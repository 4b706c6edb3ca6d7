// What of Zulip's API reference (test/reference/zulip-openapi.json) Parley does not serve, and why.
// test/apiCoverage.test.ts fails when an operation of the reference has no route and is not here,
// or is here but has a route; docs' API table is generated from the same data.
import type { Route } from '../http/route.js';

/** Whether a route serves an operation of the reference (`GET /users/{user_id}`): its parameters
 * match any segment, and a last one (a file's path) one or more. */
export function routed(routes: readonly Route[], operation: string): boolean {
  const [method, path] = operation.split(' ') as [string, string];
  const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}$/, '.+').replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return routes.some((route) => !route.atRoot && route.method === method && pattern.test(route.path));
}

/** `METHOD /path` as the reference writes it → why Parley has no route for it. */
export const unservedOperations: Readonly<Record<string, string>> = {
  'POST /real-time': "not an endpoint: the reference's page about the event system",
  'POST /rest-error-handling': "not an endpoint: the reference's page about errors",
  'POST /zulip-outgoing-webhook': 'not an endpoint Parley serves: the request Parley sends to outgoing-webhook bots (docs/integrations.md)',
};
