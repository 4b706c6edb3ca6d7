// Full-text search through GET /messages: stemming, stop words, phrases, the last word as a prefix,
// other narrow operators, the reader's access, edits, moves and deletions seen at once, Zulip's
// highlights and live queues narrowed by a search. The index built for an older data directory at
// start and by the management CLI (a process of its own) is in the fault tier,
// test/faults/searchMigration.fault.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiClient } from './helpers/client.js';
import { register, type Event } from './helpers/events.js';
import { assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const search = suite<{ server: TestServer }>('full-text search');

search.before(async (context) => {
  context.server = await startTestServer();
});
search.after(async ({ server }) => server.stop());

type Found = { id: number; subject: string; match_content?: string; match_subject?: string };
type Narrow = (Record<string, unknown> | [string, unknown])[];

async function send(client: ApiClient, to: string, topic: string, content: string): Promise<number> {
  const response = await client.post('/messages', { type: 'stream', to, topic, content });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number(response.body.id);
}

/** The messages a search finds, newest last, checked against the reference. */
async function find(client: ApiClient, narrow: Narrow, window: Record<string, unknown> = {}): Promise<Found[]> {
  const response = await client.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow, ...window });
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('GET /messages', response.body);
  return response.body.messages as Found[];
}

const ids = (found: Found[]): number[] => found.map((message) => message.id);
const words = async (client: ApiClient, text: string, narrow: Narrow = []): Promise<number[]> => ids(await find(client, [...narrow, ['search', text]]));

search('a word finds its other forms; stop words are left out and reported by register; highlights as Zulip shows them', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const id = await send(hamlet, 'Verona', 'release deploy', 'We deployed the **new** server & it is deploying well, this was planned.');
  for (const query of ['deploy', 'deploying', 'Deployed', 'the deployed', 'SERVER']) assert.equal(await words(othello, query), [id], query);
  for (const stop of ['the', 'was this', 'has']) assert.equal(await words(othello, stop), [], `stop words alone find nothing: ${stop}`);
  assert.equal(await words(othello, 'undeployable'), []);
  const [found] = await find(othello, [['search', 'deploy server']]);
  assert.is(found!.match_content, '<p>We <span class="highlight">deployed</span> the <strong>new</strong> <span class="highlight">server</span> &amp; it is <span class="highlight">deploying</span> well, this was planned.</p>');
  assert.is(found!.match_subject, 'release <span class="highlight">deploy</span>');
  const [plain] = await find(othello, [['topic', 'release deploy']]);
  assert.is(plain!.match_content, undefined, 'only a search carries highlights');
  const registered = await othello.post('/register', { fetch_event_types: ['stop_words'] });
  const stopWords = registered.body.stop_words as string[];
  for (const word of ['the', 'is', 'and', 'a', 'x']) assert.ok(stopWords.includes(word), word);
  assert.not.ok(stopWords.includes('deploy'));
});

search('a quoted phrase needs its words together; the last word typed is a prefix', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const together = await send(hamlet, 'Verona', 'phrases', 'the quick brownish fox jumps over the lazy dog');
  const apart = await send(hamlet, 'Verona', 'phrases', 'a brownish dog and a quick fox');
  assert.equal(await words(hamlet, '"quick brownish"'), [together]);
  assert.equal(await words(hamlet, '"over the lazy dog"'), [together], 'stop words inside a phrase count');
  assert.equal(await words(hamlet, '"lazy the dog"'), []);
  assert.equal(await words(hamlet, 'quick brownish'), [together, apart]);
  assert.equal(await words(hamlet, 'brownis'), [together, apart], 'an unfinished last word');
  assert.equal(await words(hamlet, 'jum lazy'), [], 'only the last word is a prefix');
  assert.equal(await words(hamlet, 'lazy jum'), [together]);
  assert.equal(await words(hamlet, '"brownis"'), [], 'a quoted word is whole');
  const [found] = await find(hamlet, [['search', 'lazy jum']]);
  assert.match(found!.match_content!, /<span class="highlight">jumps<\/span> over the <span class="highlight">lazy<\/span>/);
});

search('combined with channel, topic, sender and negation; newest first with anchors', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const cordelia = await server.as('cordelia@zulip.com');
  const first = await send(hamlet, 'Verona', 'kiwi one', 'kiwifruit harvest');
  const second = await send(cordelia, 'Verona', 'kiwi two', 'kiwifruit harvest');
  const third = await send(hamlet, 'Denmark', 'kiwi one', 'kiwifruit harvest');
  const fourth = await send(hamlet, 'Verona', 'kiwi one', 'kiwifruit harvest bonus');
  assert.equal(await words(hamlet, 'kiwifruit'), [first, second, third, fourth]);
  assert.equal(await words(hamlet, 'kiwifruit', [['channel', 'Verona']]), [first, second, fourth]);
  assert.equal(await words(hamlet, 'kiwifruit', [['channel', 'Verona'], ['topic', 'kiwi one']]), [first, fourth]);
  assert.equal(await words(hamlet, 'kiwifruit', [['channel', 'Verona'], ['channel', 'Denmark']]), []);
  assert.equal(await words(hamlet, 'kiwifruit', [['channel', 'Verona'], { operator: 'topic', operand: 'kiwi one', negated: true }]), [second]);
  assert.equal(await words(hamlet, 'kiwifruit', [['sender', 'cordelia@zulip.com']]), [second]);
  assert.equal(await words(hamlet, 'harvest', [{ operator: 'search', operand: 'bonus', negated: true }]), [first, second, third]);
  assert.equal(ids(await find(hamlet, [['channel', 'Verona'], { operator: 'search', operand: 'kiwifruit', negated: true }, ['topic', 'kiwi one']])), []);
  const newest = await hamlet.get('/messages', { anchor: 'newest', num_before: 2, num_after: 0, narrow: [['search', 'kiwifruit']] });
  assert.equal([ids(newest.body.messages as Found[]), newest.body.found_oldest, newest.body.found_newest], [[third, fourth], false, true]);
  const around = await hamlet.get('/messages', { anchor: second, num_before: 1, num_after: 1, narrow: [['search', 'kiwifruit']] });
  assert.equal([ids(around.body.messages as Found[]), around.body.found_anchor], [[first, second, third], true]);
  const oldest = await hamlet.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 2, narrow: [['search', 'kiwifruit']] });
  assert.equal([ids(oldest.body.messages as Found[]), oldest.body.found_oldest, oldest.body.found_newest], [[first, second], true, false]);
  // Several words, a prefix and a channel read side by side, in both directions.
  const forward = await find(hamlet, [['channel', 'Verona'], ['search', 'harvest kiwifr']], { anchor: first, num_before: 0, num_after: 5, include_anchor: false });
  assert.equal(ids(forward), [second, fourth]);
  const backward = await find(hamlet, [['channel', 'Verona'], ['search', 'harvest kiwifr']], { anchor: fourth, num_before: 5, num_after: 0, include_anchor: false });
  assert.equal(ids(backward), [first, second]);
});

search('a search never shows a message its reader may not read', async ({ server }) => {
  const iago = await server.as('iago@zulip.com');
  const hamlet = await server.as('hamlet@zulip.com');
  const polonius = await server.as('polonius@zulip.com');
  const secret = await send(iago, 'core team', 'plans', 'zanzibar secret plans');
  const open = await send(iago, 'Scotland', 'plans', 'zanzibar open plans');
  const direct = await iago.post('/messages', { type: 'direct', to: JSON.stringify([await idOf(hamlet)]), content: 'zanzibar between us' });
  assert.equal(await words(iago, 'zanzibar'), [secret, open, Number(direct.body.id)]);
  assert.equal(await words(hamlet, 'zanzibar'), [Number(direct.body.id)], 'only messages one received, without a channel');
  assert.equal(await words(hamlet, 'zanzibar', [['channel', 'core team']]), [], 'a private channel one is not in');
  assert.equal(await words(hamlet, 'zanzibar', [['channel', 'Scotland']]), [open], "a public channel's history");
  assert.equal(await words(polonius, 'zanzibar', [['channel', 'Scotland']]), [], 'a guest outside the channel');
  assert.equal(await words(polonius, 'zanzibar'), []);
});

const idOf = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);

search('edits, moves and deletions are found at once', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const id = await send(hamlet, 'Verona', 'quokka', 'wombat sighting');
  assert.equal(await words(hamlet, 'wombat'), [id]);
  assert.is((await hamlet.patch(`/messages/${id}`, { content: 'platypus sighting' })).status, 200);
  assert.equal(await words(hamlet, 'wombat'), []);
  assert.equal(await words(hamlet, 'platypus sighting'), [id]);
  // Without the notices of the move, which name the old topic.
  const quietly = { send_notification_to_old_thread: false, send_notification_to_new_thread: false };
  assert.is((await hamlet.patch(`/messages/${id}`, { topic: 'echidna', ...quietly })).status, 200);
  assert.equal(await words(hamlet, 'quokka'), []);
  assert.equal(await words(hamlet, 'echidna platypus'), [id]);
  assert.is((await iago.patch(`/messages/${id}`, { stream_id: Number((await iago.get('/get_stream_id', { stream: 'Denmark' })).body.stream_id), topic: 'numbat', ...quietly })).status, 200);
  assert.equal(await words(hamlet, 'platypus', [['channel', 'Verona']]), []);
  assert.equal(await words(hamlet, 'platypus numbat', [['channel', 'Denmark']]), [id]);
  assert.equal(await words(iago, 'platypus', [['channel', 'Denmark']]), [id]);
  assert.is((await iago.delete(`/messages/${id}`)).status, 200);
  assert.equal(await words(hamlet, 'platypus'), []);
  assert.equal(await words(iago, 'platypus', [['channel', 'Denmark']]), []);
});

search('a queue narrowed by a search gets only matching messages; matches_narrow highlights', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const queue = await register(hamlet, { event_types: ['message'], narrow: JSON.stringify([['search', 'narwhal']]) });
  const match = await send(hamlet, 'Verona', 'sea', 'two narwhals');
  await send(hamlet, 'Verona', 'sea', 'a walrus');
  const events = (await hamlet.get('/events', { queue_id: queue.queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
  assert.equal(events.filter((event) => event.type === 'message').map((event) => (event.message as Found).id), [match]);
  const checked = await hamlet.get('/messages/matches_narrow', { msg_ids: JSON.stringify([match]), narrow: JSON.stringify([['search', 'narwhal']]) });
  assertMatchesReference('GET /messages/matches_narrow', checked.body);
  assert.equal(checked.body.messages, { [match]: { match_content: '<p>two <span class="highlight">narwhals</span></p>', match_subject: 'sea' } });
});

search.run();
