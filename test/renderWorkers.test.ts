// Render workers (PARLEY_RENDER_THREADS): a long message is rendered off the realm's thread with a
// copy of the realm's names, linkifiers and URL, and the result must be exactly what the realm
// would have rendered — checked over Zulip's Markdown fixtures against a server without workers —
// and must be made again by the realm when the names moved in between.
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiClient } from './helpers/client.js';
import { startTestServer, type TestServer } from './helpers/server.js';

interface Context {
  pooled: TestServer;
  plain: TestServer;
}

const workers = suite<Context>('render workers');

workers.before(async (context) => {
  const metricsListen = { host: '127.0.0.1', port: 0 };
  context.pooled = await startTestServer({ renderThreads: 2, metricsListen });
  context.plain = await startTestServer({ metricsListen });
  // The workers start with the first long message; until one has loaded, the realm renders.
  const hamlet = await context.pooled.as('hamlet@zulip.com');
  for (let attempt = 0; (await renders(context.pooled)).worker === 0; attempt++) {
    assert.ok(attempt < 200, 'a render worker took a long message within 10 s');
    await sent(hamlet, '```\nwarming up\n```');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});
workers.after(async ({ pooled, plain }) => {
  await pooled.stop();
  await plain.stop();
});

/** How many new messages each server rendered on a worker and on the realm's thread. */
async function renders(server: TestServer): Promise<{ worker: number; realm: number }> {
  const text = await (await fetch(`http://127.0.0.1:${server.parley.metricsPort}/metrics`)).text();
  const count = (on: string) => Number(new RegExp(`^parley_message_renders_total\\{on="${on}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  return { worker: count('worker'), realm: count('realm') };
}

async function sent(client: ApiClient, content: string): Promise<string> {
  const response = await client.post('/messages', { type: 'stream', to: 'Verona', topic: 'rendering', content });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return ((await client.get(`/messages/${response.body.id}`)).body.message as { content: string }).content;
}

/** Both servers' renderings of the same content, in the same realm (same seed, same IDs). */
async function both({ pooled, plain }: Context, content: string, as = 'hamlet@zulip.com'): Promise<[string, string]> {
  return [await sent(await pooled.as(as), content), await sent(await plain.as(as), content)];
}

const fixtures = JSON.parse(readFileSync(new URL('../../test/reference/zulip-markdown-test-cases.json', import.meta.url), 'utf8')) as { regular_tests: { name: string; input: string; translate_emoticons?: boolean }[] };

workers("every fixture of Zulip's Markdown renders on a worker exactly as on the realm's thread", async (context) => {
  const before = await renders(context.pooled);
  const cases = fixtures.regular_tests.filter((test) => !test.translate_emoticons);
  // Each server sends every case at once (a code block makes any content worth a worker), then
  // reads back what it stored.
  const topic = 'fixtures';
  // What each server stored of every case, and, for some words, which cases a search finds (the
  // words the search index holds are found where the content was rendered).
  const words = ['end', 'zulip', 'link', 'emoji', 'hello'];
  const stored = async (server: TestServer): Promise<{ contents: string[]; found: number[][] }> => {
    const hamlet = await server.as('hamlet@zulip.com');
    const ids = await Promise.all(cases.map(async (test) => {
      const response = await hamlet.post('/messages', { type: 'stream', to: 'Verona', topic, content: `${test.input}\n\n\`\`\`\nend\n\`\`\`` });
      assert.is(response.status, 200, test.name);
      return Number(response.body.id);
    }));
    const fetched = async (...narrow: { operator: string; operand: string }[]) =>
      (await hamlet.get('/messages', { anchor: 'newest', num_before: cases.length, num_after: 0, narrow: [{ operator: 'channel', operand: 'Verona' }, { operator: 'topic', operand: topic }, ...narrow] })).body.messages as { id: number; content: string }[];
    const byId = new Map((await fetched()).map((message) => [message.id, message.content]));
    const found = await Promise.all(words.map(async (word) => (await fetched({ operator: 'search', operand: word })).map((message) => ids.indexOf(message.id)).sort((a, b) => a - b)));
    return { contents: ids.map((id) => byId.get(id)!), found };
  };
  const [worker, realm] = await Promise.all([stored(context.pooled), stored(context.plain)]);
  assert.is(worker.contents.length, cases.length);
  cases.forEach((test, index) => assert.is(worker.contents[index], realm.contents[index], test.name));
  words.forEach((word, index) => assert.equal(worker.found[index], realm.found[index], word));
  assert.is(worker.found[0]!.length, cases.length, 'every case holds "end"');
  const after = await renders(context.pooled);
  assert.equal([after.worker - before.worker, after.realm - before.realm], [cases.length, 0], 'each rendered on a worker');
});

workers("mentions, channel links, groups, linkifiers, emoticons and the sender's settings come out as the realm's", async (context) => {
  for (const server of [context.pooled, context.plain]) {
    const iago = await server.as('iago@zulip.com');
    assert.is((await iago.post('/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}' })).status, 200);
    assert.is((await iago.post('/user_groups/create', { name: 'reviewers', description: 'They review', members: JSON.stringify([(await iago.get('/users/me')).body.user_id]) })).status, 200);
    assert.is((await (await server.as('othello@zulip.com')).patch('/settings', { translate_emoticons: true })).status, 200);
  }
  // Long enough for a worker, with no code block or math to make it so.
  const content = `@**Iago** @*reviewers* #**Verona>greetings** fixes #42 :) ${'more words '.repeat(100)}`;
  const before = await renders(context.pooled);
  const [worker, realm] = await both(context, content);
  assert.is((await renders(context.pooled)).worker - before.worker, 1);
  assert.is(worker, realm);
  assert.match(worker, /user-mention/);
  assert.match(worker, /user-group-mention/);
  assert.match(worker, /tracker\.example\/42/);
  const [withEmoticons, realmEmoticons] = await both(context, content, 'othello@zulip.com');
  assert.is(withEmoticons, realmEmoticons);
  assert.match(withEmoticons, /emoji/, 'translate_emoticons is the sender\'s');
});

workers('an edit with new content renders on a worker too, with its sender\'s settings', async (context) => {
  const content = `:) fixed:\n\`\`\`js\nconst answer = 42;\n\`\`\`\n$$e^{i\\pi} + 1 = 0$$`;
  const edited: string[] = [];
  for (const server of [context.pooled, context.plain]) {
    // Othello translates emoticons (set by the test above): the rendering takes his setting.
    const othello = await server.as('othello@zulip.com');
    const id = Number((await othello.post('/messages', { type: 'stream', to: 'Verona', topic: 'rendering', content: 'first draft' })).body.id);
    const before = await renders(server);
    assert.is((await othello.patch(`/messages/${id}`, { content })).status, 200);
    const after = await renders(server);
    assert.equal([after.worker - before.worker, after.realm - before.realm], server === context.pooled ? [1, 0] : [0, 1]);
    edited.push(((await othello.get(`/messages/${id}`)).body.message as { content: string }).content);
  }
  assert.is(edited[0], edited[1]);
  assert.match(edited[0]!, /emoji/);
});

workers("a short line stays on the realm's thread; a change of names between rendering and writing is rendered again by the realm", async (context) => {
  const hamlet = await context.pooled.as('hamlet@zulip.com');
  const before = await renders(context.pooled);
  await sent(hamlet, 'just a line');
  const after = await renders(context.pooled);
  assert.equal([after.worker - before.worker, after.realm - before.realm], [0, 1]);

  // A rendering made with a context the realm has since moved past is not used.
  const realm = context.pooled.parley.realms.forHost('')!;
  const hamletId = Number((await hamlet.get('/users/me')).body.user_id);
  const { version } = await realm.answer('render.version', hamletId, {});
  assert.is((await (await context.pooled.as('iago@zulip.com')).patch('/settings', { full_name: 'Iago Renamed' })).status, 200);
  const content = `@**Iago Renamed** ${'x'.repeat(400)}`;
  const stale = { content, version, translateEmoticons: false, rendered: { html: '<p>stale</p>', mentions: { userIds: new Set<number>(), groupIds: new Set<number>(), channelWildcard: false, topicWildcard: false } }, contentTerms: ['stale'] };
  const { id } = await realm.ask('messages.send', hamletId, { type: 'stream', to: ['Verona'], topic: 'rendering', content, readBySender: false, client: 'test', prerendered: stale });
  const stored = ((await hamlet.get(`/messages/${id}`)).body.message as { content: string }).content;
  assert.not.match(stored, /stale/);
  assert.match(stored, /user-mention[^>]*>@Iago Renamed/);
  // Nor are its words: the search index holds the message's own.
  const search = async (word: string) => ((await hamlet.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'search', operand: word }]) })).body.messages as { id: number }[]).map((message) => message.id);
  assert.equal(await search('stale'), []);
  assert.equal(await search('renamed'), [id]);
});

workers.run();
