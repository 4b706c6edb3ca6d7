// The path router: static segments before parameters, integer parameters before string ones.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Router } from '../src/http/router.js';

function router(): Router<string> {
  const r = new Router<string>();
  r.add('GET', '/users/me', 'own user');
  r.add('GET', '/users/{user_id:int}', 'user by id');
  r.add('GET', '/users/{email}', 'user by email');
  r.add('DELETE', '/users/{user_id:int}', 'deactivate');
  r.add('GET', '/users/{user_id:int}/status', 'status');
  return r;
}

test('static segments win over parameters', () => {
  assert.equal(router().match('GET', '/users/me'), { kind: 'found', value: 'own user', params: {} });
});

test('an integer segment matches the integer parameter and arrives as a number', () => {
  assert.equal(router().match('GET', '/users/42'), { kind: 'found', value: 'user by id', params: { user_id: 42 } });
  assert.equal(router().match('GET', '/users/42/status'), { kind: 'found', value: 'status', params: { user_id: 42 } });
});

test('any other segment matches the string parameter, URL-decoded', () => {
  assert.equal(router().match('GET', '/users/iago%40zulip.com'), { kind: 'found', value: 'user by email', params: { email: 'iago@zulip.com' } });
  assert.equal(router().match('GET', '/users/%E0%A4%A'), { kind: 'found', value: 'user by email', params: { email: '%E0%A4%A' } });
});

test('a known path with another method reports the allowed methods; an unknown one is not found', () => {
  assert.equal(router().match('POST', '/users/7'), { kind: 'wrongMethod', allowed: ['GET', 'DELETE'] });
  assert.equal(router().match('GET', '/users/7/nothing'), { kind: 'notFound' });
  assert.equal(router().match('GET', '/users/me/status'), { kind: 'notFound' });
  assert.equal(router().match('GET', '/'), { kind: 'notFound' });
});

test('conflicting registrations fail when the table is built', () => {
  const r = router();
  assert.throws(() => r.add('GET', '/users/me', 'again'), /duplicate route/);
  assert.throws(() => r.add('GET', '/users/{id:int}/x', 'renamed'), /clashes/);
});

test('a last path parameter takes the rest of the path, slashes included, each segment URL-decoded', () => {
  const r = new Router<string>();
  r.add('PATCH', '/views/{fragment:path}', 'view');
  r.add('GET', '/views/mine', 'mine');
  assert.equal(r.match('PATCH', '/views/narrow/is/alerted'), { kind: 'found', value: 'view', params: { fragment: 'narrow/is/alerted' } });
  assert.equal(r.match('PATCH', '/views/narrow%2Fstream%2F1-a%20b'), { kind: 'found', value: 'view', params: { fragment: 'narrow/stream/1-a b' } });
  assert.equal(r.match('PATCH', '/views/inbox'), { kind: 'found', value: 'view', params: { fragment: 'inbox' } });
  assert.equal(r.match('GET', '/views/mine'), { kind: 'found', value: 'mine', params: {} });
  assert.equal(r.match('PATCH', '/views'), { kind: 'notFound' });
  assert.throws(() => r.add('GET', '/views/{fragment:path}/x', 'after'), /must come last/);
});

test.run();
