// Linkifiers (spec endpoint 18 and the rest): administrators only, the pattern and template rules,
// rendering (not inside code or links), order, events, and linear time on a pattern that would
// backtrack catastrophically in a backtracking engine.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesReference, specLinkifierFields } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const linkifiers = suite<{ server: TestServer }>('linkifiers');

linkifiers.before(async (context) => {
  context.server = await startTestServer();
});
linkifiers.after(async ({ server }) => server.stop());

async function rendered(client: ApiClient, content: string): Promise<string> {
  const sent = await client.post('/messages', { type: 'stream', to: 'Verona', topic: 'links', content });
  return ((await client.get(`/messages/${sent.body.id}`)).body.message as { content: string }).content;
}

linkifiers('administrators add linkifiers; messages render their matches as links, not inside code', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const added = await iago.post('/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/issues/{id}' });
  assertMatchesReference('POST /realm/filters', added.body);
  assert.is((await hamlet.post('/realm/filters', { pattern: 'x(?P<a>y)', url_template: 'https://x.example/{a}' })).body.code, 'UNAUTHORIZED_PRINCIPAL');
  assert.is(await rendered(hamlet, 'Fixes #42 and #7'), '<p>Fixes <a href="https://tracker.example/issues/42">#42</a> and <a href="https://tracker.example/issues/7">#7</a></p>');
  assert.is(await rendered(hamlet, 'not `#42` here'), '<p>not <code>#42</code> here</p>');
  const listed = await hamlet.get('/realm/linkifiers');
  assertMatchesReference('GET /realm/linkifiers', listed.body, specLinkifierFields('linkifiers[]'));
  await iago.delete(`/realm/filters/${added.body.id}`);
  assert.is(await rendered(hamlet, 'Fixes #42'), '<p>Fixes #42</p>');
});

linkifiers('patterns, URL templates and reverse templates are checked', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  for (const [params, pattern] of [
    [{ pattern: '(?P<id>[0-9+', url_template: 'https://x.example/{id}' }, /Invalid linkifier pattern/],
    [{ pattern: '(?P<id>[0-9]+)', url_template: 'https://x.example/{id' }, /Invalid URL template/],
    [{ pattern: '(?P<id>[0-9]+)', url_template: 'https://x.example/{other}' }, /Group "other" in URL template is not present/],
    [{ pattern: '(?P<id>[0-9]+)-(?P<x>[a-z]+)', url_template: 'https://x.example/{id}' }, /Group "x" in linkifier pattern is not present in URL template/],
    [{ pattern: '(?P<id>[0-9]+)', url_template: 'https://x.example/{id}', reverse_template: 'N{nope}' }, /reverse linkifier template/],
    [{ pattern: '(?P<id>[0-9]+)', url_template: 'https://x.example/{id}', alternative_url_templates: ['https://y.example/{zzz}'] }, /Group "zzz"/],
    // Round trip: "issue 1" is not text the pattern finds #1 in.
    [{ pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.example/{id}', reverse_template: 'issue {id}' }, /does not give text that the linkifier pattern matches/],
    [{ pattern: '(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)', url_template: 'https://g.example/{org}/{repo}/{id}', reverse_template: '{repo}/{org}#{id}!' }, /does not give text/],
  ] as const) {
    const response = await iago.post('/realm/filters', params);
    assert.equal([response.status, response.body.code], [400, 'BAD_REQUEST'], JSON.stringify(params));
    assert.match(String(response.body.msg), pattern);
  }
  const accepted = await iago.post('/realm/filters', {
    pattern: '(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)',
    url_template: 'https://g.example/{org}/{repo}/issues/{id}',
    reverse_template: '{org}/{repo}#{id}',
  });
  assert.is(accepted.status, 200, JSON.stringify(accepted.body));
});

linkifiers('endpoint 18 updates a linkifier; an empty reverse template resets it to null; {{ }} are literal braces', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const id = Number((await iago.post('/realm/filters', { pattern: 'RFC(?P<n>[0-9]+)', url_template: 'https://rfc.example/{n}', reverse_template: 'RFC{n}' })).body.id);
  const find = async () => ((await iago.get('/realm/linkifiers')).body.linkifiers as { id: number; reverse_template?: string; url_template: string }[]).find((l) => l.id === id)!;
  assert.is((await find()).reverse_template, 'RFC{n}');
  const updated = await iago.patch(`/realm/filters/${id}`, { pattern: 'RFC(?P<n>[0-9]+)', url_template: 'https://www.rfc-editor.example/rfc/rfc{n}', reverse_template: '{{RFC{n}}}' });
  assertMatchesReference('PATCH /realm/filters/{filter_id}', updated.body);
  assert.equal([(await find()).url_template, (await find()).reverse_template], ['https://www.rfc-editor.example/rfc/rfc{n}', '{{RFC{n}}}']);
  await iago.patch(`/realm/filters/${id}`, { pattern: 'RFC(?P<n>[0-9]+)', url_template: 'https://rfc.example/{n}', reverse_template: '' });
  assert.not.ok('reverse_template' in (await find()), 'an empty string resets it to null');
  assert.is((await iago.patch('/realm/filters/999999', { pattern: 'a(?P<b>b)', url_template: 'https://x.example/{b}' })).status, 400);
  await iago.delete(`/realm/filters/${id}`);
});

linkifiers('a catastrophic-backtracking pattern renders in linear time', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  await iago.post('/realm/filters', { pattern: '(?P<x>(a+)+)b', url_template: 'https://slow.example/{x}' });
  // A backtracking engine needs ~2^n steps for n a's not followed by b; RE2 is linear.
  const started = Date.now();
  const content = await rendered(iago, 'a'.repeat(5000) + 'c');
  assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
  assert.not.match(content, /<a /);
  assert.match(await rendered(iago, 'aaab'), /<a href="https:\/\/slow\.example\/aaa">aaab<\/a>/);
});

linkifiers('order decides overlapping matches; reordering needs every linkifier; events and state', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const before = await register(cordelia, { fetch_event_types: ['realm_linkifiers'], event_types: ['realm_linkifiers'] });
  await iago.post('/realm/filters', { pattern: 'ZUL-(?P<n>[0-9]+)', url_template: 'https://one.example/{n}' });
  const second = Number((await iago.post('/realm/filters', { pattern: '(?P<p>[A-Z]+)-(?P<n>[0-9]+)', url_template: 'https://two.example/{p}/{n}' })).body.id);
  const ids = ((await iago.get('/realm/linkifiers')).body.linkifiers as { id: number }[]).map((l) => l.id);
  assert.match(await rendered(iago, 'see ZUL-5'), /one\.example\/5/);
  assert.is((await iago.patch('/realm/linkifiers', { ordered_linkifier_ids: [second] })).body.msg, 'Invalid order mapping.');
  const reordered = await iago.patch('/realm/linkifiers', { ordered_linkifier_ids: [...ids].reverse() });
  assertMatchesReference('PATCH /realm/linkifiers', reordered.body);
  assert.match(await rendered(iago, 'see ZUL-5'), /two\.example\/ZUL\/5/);
  const events = (await cordelia.get('/events', { queue_id: before.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.ok(events.length >= 3);
  for (const event of events) assertEventMatchesReference(event, specLinkifierFields('realm_linkifiers[]'));
  for (const event of events) applyEvent(before.state, event);
  assert.equal(comparable(before.state), comparable((await register(cordelia, { fetch_event_types: ['realm_linkifiers'] })).state));
  await assertRequiresCredentials(server.anonymous, [
    ['GET', '/realm/linkifiers'],
    ['POST', '/realm/filters'],
    ['PATCH', '/realm/filters/1'],
    ['DELETE', '/realm/filters/1'],
    ['PATCH', '/realm/linkifiers'],
  ]);
});

linkifiers.run();
