// Every operation of Zulip's API reference has a route, or is listed with its reason in
// src/api/coverage.ts; and nothing listed there has a route.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { routed, unservedOperations } from '../src/api/coverage.js';
import { routes } from '../src/api/routes.js';

const spec = JSON.parse(readFileSync(new URL('../../test/reference/zulip-openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
const methods = ['get', 'post', 'put', 'patch', 'delete'];

const operations = Object.entries(spec.paths).flatMap(([path, ops]) => Object.keys(ops).filter((method) => methods.includes(method)).map((method) => `${method.toUpperCase()} ${path}`));
const hasRoute = (operation: string): boolean => routed(routes, operation);

test('every operation of the reference has a route or a reason in src/api/coverage.ts', () => {
  assert.equal(operations.filter((operation) => !hasRoute(operation) && !(operation in unservedOperations)), []);
});

test('src/api/coverage.ts lists only operations of the reference that have no route', () => {
  assert.equal(Object.keys(unservedOperations).filter((operation) => !operations.includes(operation) || hasRoute(operation)), []);
});

test.run();
