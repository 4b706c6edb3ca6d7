// Zulip's error shape: `{result: "error", msg, code}` and the fields the reference gives some
// codes, checked against the reference's own error schemas.
import * as assert from 'uvu/assert';
import type { Route } from '../../src/http/route.js';
import type { RawResponse } from './client.js';
import { assertMatchesComponent } from './reference.js';

const componentByCode: Partial<Record<string, string>> = {
  REQUEST_VARIABLE_MISSING: 'MissingArgumentError',
  BAD_EVENT_QUEUE_ID: 'BadEventQueueIdError',
  INVALID_API_KEY: 'InvalidApiKeyError',
  USER_DEACTIVATED: 'UserDeactivatedError',
  REALM_DEACTIVATED: 'RealmDeactivatedError',
  RATE_LIMIT_HIT: 'RateLimitedError',
};

const plainFields = new Set(['result', 'msg', 'code']);

/** The reference schema an error body must match: the one of its code, else a plain error
 * (nothing beyond result, msg and code) or, with fields of its own, the base every error extends. */
function componentOf(body: Record<string, unknown>): string {
  const code = String(body.code);
  if (code === 'STREAM_DOES_NOT_EXIST') return 'stream_id' in body ? 'NonExistingChannelIdError' : 'NonExistingChannelNameError';
  return componentByCode[code] ?? (Object.keys(body).every((key) => plainFields.has(key)) ? 'CodedError' : 'CodedErrorBase');
}

/** Asserts that an answer is a client error in Zulip's shape; `label` names the request. */
export function assertZulipError(response: RawResponse, label: string): Record<string, unknown> {
  assert.ok(response.status >= 400 && response.status < 500, `${label}: status ${response.status} is not a client error: ${response.text.slice(0, 300)}`);
  const body = jsonOf(response, label);
  assert.ok(body.result === 'error' && typeof body.msg === 'string' && typeof body.code === 'string', `${label}: not Zulip's error shape: ${response.text.slice(0, 300)}`);
  assertMatchesComponent(componentOf(body), body);
  return body;
}

/** Asserts that a refusal is Zulip's JSON error or, from a route that answers people in browsers,
 * a page. */
export function assertRefusal(route: Pick<Route, 'page'>, response: RawResponse, label: string): void {
  const html = String(response.headers['content-type']).startsWith('text/html');
  if (route.page && html) assert.ok(response.status >= 400 && response.status < 500, `${label}: status ${response.status} is not a client error`);
  else assertZulipError(response, label);
}

function jsonOf(response: RawResponse, label: string): Record<string, unknown> {
  try {
    return JSON.parse(response.text) as Record<string, unknown>;
  } catch {
    throw new assert.Assertion({ message: `${label}: the ${response.status} answer is not JSON: ${response.text.slice(0, 300)}`, generated: false, operator: 'json', expects: 'JSON', actual: response.text.slice(0, 300) });
  }
}
