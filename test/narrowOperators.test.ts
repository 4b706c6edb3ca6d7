// Every narrow operator Zulip documents, and its negation, against messages made for it: GET
// /messages, GET /messages/matches_narrow and POST /messages/flags/narrow must select the same
// messages, since clients use all three for one view (fetch, live updates, mark as read).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { upload } from './helpers/files.js';
import { assertMatchesReference } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import type { ApiClient } from './helpers/client.js';

type Term = { operator: string; operand: unknown; negated?: boolean };
type Label = keyof Messages;
type Messages = Awaited<ReturnType<typeof makeMessages>>;

const narrows = suite<{ server: TestServer; hamlet: ApiClient; messages: Messages }>('narrow operators');

const idOf = async (client: ApiClient) => Number((await client.get('/users/me')).body.user_id);

async function send(client: ApiClient, params: Record<string, unknown>): Promise<number> {
  const response = await client.post('/messages', params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number(response.body.id);
}

/** One message per fact a narrow can ask about; hamlet is the viewer. */
async function makeMessages(server: TestServer) {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const [hamletId, iagoId] = [await idOf(hamlet), await idOf(iago)];
  const verona = (topic: string, content: string) => send(othello, { type: 'stream', to: 'Verona', topic, content });
  assert.is((await hamlet.post('/users/me/alert_words', { alert_words: JSON.stringify(['zebra']) })).status, 200);
  const channelId = Number((await hamlet.get('/get_stream_id', { stream: 'Verona' })).body.stream_id);
  assert.is((await hamlet.post('/user_topics', { stream_id: channelId, topic: 'followed topic', visibility_policy: 3 })).status, 200);
  assert.is((await hamlet.post('/user_topics', { stream_id: channelId, topic: 'muted topic', visibility_policy: 1 })).status, 200);
  const file = await upload(othello, [{ name: 'notes.txt', type: 'text/plain', bytes: 'notes' }]);
  assert.is(file.status, 200);
  const messages = {
    link: await verona('links', 'see https://example.com/page'),
    attachment: await verona('files', `[notes.txt](${String(file.body.url)})`),
    image: await verona('files', 'https://example.com/pic.png'),
    reaction: await verona('plain', 'react to me'),
    star: await verona('plain', 'star me'),
    mine: await send(hamlet, { type: 'stream', to: 'Verona', topic: 'plain', content: 'my own words' }),
    mention: await verona('plain', '@**King Hamlet** look'),
    alert: await verona('plain', 'a zebra appears'),
    resolved: await verona('✔ done', 'finished'),
    followed: await verona('followed topic', 'followed'),
    muted: await verona('muted topic', 'muted'),
    dm: await send(othello, { type: 'private', to: JSON.stringify([hamletId]), content: 'hello hamlet' }),
    group: await send(othello, { type: 'private', to: JSON.stringify([hamletId, iagoId]), content: 'hello both' }),
    moved: await send(iago, { type: 'stream', to: 'Verona', topic: 'before move', content: 'moving on' }),
    movedPeer: await send(iago, { type: 'stream', to: 'Denmark', topic: 'after move', content: 'already here' }),
  };
  assert.is((await hamlet.post(`/messages/${messages.reaction}/reactions`, { emoji_name: 'octopus' })).status, 200);
  assert.is((await hamlet.post('/messages/flags', { messages: JSON.stringify([messages.star]), op: 'add', flag: 'starred' })).status, 200);
  assert.is((await hamlet.post('/messages/flags', { messages: JSON.stringify([messages.star, messages.mine]), op: 'add', flag: 'read' })).status, 200);
  const denmark = Number((await iago.get('/get_stream_id', { stream: 'Denmark' })).body.stream_id);
  const move = await iago.patch(`/messages/${messages.moved}`, { stream_id: denmark, topic: 'after move', propagate_mode: 'change_one' });
  assert.is(move.status, 200, JSON.stringify(move.body));
  return messages;
}

narrows.before(async (context) => {
  context.server = await startTestServer();
  context.hamlet = await context.server.as('hamlet@zulip.com');
  context.messages = await makeMessages(context.server);
});
narrows.after(async ({ server }) => server.stop());

const term = (operator: string, operand: unknown): Term => ({ operator, operand });

/** Each narrow with the test messages it selects; negating its last term selects the rest (or
 * `negated`'s list), unless the operator ignores negation (`near`, `with`: no negated row). */
const table = (m: Messages): { narrow: Term[]; expect: Label[]; negated?: Label[] | null }[] => [
  { narrow: [term('has', 'link')], expect: ['link', 'attachment', 'image'] },
  { narrow: [term('has', 'attachment')], expect: ['attachment'] },
  { narrow: [term('has', 'image')], expect: ['image'] },
  { narrow: [term('has', 'reaction')], expect: ['reaction'] },
  { narrow: [term('is', 'dm')], expect: ['dm', 'group'] },
  { narrow: [term('is', 'private')], expect: ['dm', 'group'] },
  { narrow: [term('is', 'starred')], expect: ['star'] },
  { narrow: [term('is', 'mentioned')], expect: ['mention'] },
  { narrow: [term('is', 'alerted')], expect: ['alert'] },
  { narrow: [term('is', 'unread')], expect: labels(m).filter((label) => label !== 'star' && label !== 'mine') },
  // A flag with a channel: the channel's messages whose flags pass, not the user's other rows.
  { narrow: [term('channel', 'Verona'), term('is', 'unread')], expect: labels(m).filter((label) => !['dm', 'group', 'moved', 'movedPeer', 'star', 'mine'].includes(label)), negated: ['star', 'mine'] },
  { narrow: [term('is', 'starred'), term('channel', 'Verona')], expect: ['star'], negated: [] },
  { narrow: [term('is', 'resolved')], expect: ['resolved'] },
  { narrow: [term('is', 'followed')], expect: ['followed'] },
  { narrow: [term('is', 'muted')], expect: ['muted'] },
  { narrow: [term('sender', 'me')], expect: ['mine'] },
  { narrow: [term('dm-including', 'iago@zulip.com')], expect: ['group'] },
  { narrow: [term('dm', 'othello@zulip.com')], expect: ['dm'] },
  { narrow: [term('id', m.link)], expect: ['link'] },
  { narrow: [term('channels', 'public')], expect: labels(m).filter((label) => label !== 'dm' && label !== 'group') },
  { narrow: [term('channel', 'Verona'), term('topic', 'plain')], expect: ['reaction', 'star', 'mine', 'mention', 'alert'], negated: ['link', 'attachment', 'image', 'resolved', 'followed', 'muted'] },
  // `with` is the message's conversation now: where it was moved, wherever the client saw it.
  { narrow: [term('with', m.moved)], expect: ['moved', 'movedPeer'], negated: null },
  { narrow: [term('channel', 'Verona'), term('topic', 'before move'), term('with', String(m.moved))], expect: ['moved', 'movedPeer'], negated: null },
  { narrow: [term('with', m.dm)], expect: ['dm'], negated: null },
  { narrow: [term('channel', 'Verona'), term('near', m.star)], expect: labels(m).filter((label) => !['dm', 'group', 'moved', 'movedPeer'].includes(label)), negated: null },
];

function labels(m: Messages): Label[] {
  return Object.keys(m) as Label[];
}

const named = (m: Messages, ids: Iterable<number>): Label[] => {
  const byId = new Map(labels(m).map((label) => [m[label], label]));
  return [...ids].flatMap((id) => byId.get(id) ?? []).sort();
};

/** What each of the three endpoints selects of the test messages for a narrow. */
async function selected(hamlet: ApiClient, m: Messages, narrow: Term[]): Promise<{ fetched: Label[]; matched: Label[]; flagged: Label[] }> {
  const encoded = JSON.stringify(narrow);
  const fetched = await hamlet.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: encoded });
  assert.is(fetched.status, 200, `${encoded}: ${JSON.stringify(fetched.body)}`);
  assertMatchesReference('GET /messages', fetched.body);
  const matched = await hamlet.get('/messages/matches_narrow', { msg_ids: JSON.stringify(Object.values(m)), narrow: encoded });
  assertMatchesReference('GET /messages/matches_narrow', matched.body);
  // The flag updates by narrow mark `collapsed` (which no narrow here asks about), read back, then cleared.
  const range = { anchor: 'oldest', num_before: 0, num_after: 1000, include_anchor: true, narrow: encoded, flag: 'collapsed' };
  const flagged = await hamlet.post('/messages/flags/narrow', { ...range, op: 'add' });
  assertMatchesReference('POST /messages/flags/narrow', flagged.body);
  const all = await hamlet.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: '[]' });
  const collapsed = (all.body.messages as { id: number; flags: string[] }[]).filter((message) => message.flags.includes('collapsed')).map((message) => message.id);
  await hamlet.post('/messages/flags/narrow', { ...range, op: 'remove', narrow: '[]' });
  return {
    fetched: named(m, (fetched.body.messages as { id: number }[]).map((message) => message.id)),
    matched: named(m, Object.keys(matched.body.messages as object).map(Number)),
    flagged: named(m, collapsed),
  };
}

narrows('each operator and its negation select the same messages in GET /messages, matches_narrow and flags by narrow', async ({ hamlet, messages }) => {
  for (const row of table(messages)) {
    const cases: [Term[], Label[]][] = [[row.narrow, row.expect]];
    if (row.negated !== null) {
      const last = row.narrow.at(-1)!;
      cases.push([[...row.narrow.slice(0, -1), { ...last, negated: true }], row.negated ?? labels(messages).filter((label) => !row.expect.includes(label))]);
    }
    for (const [narrow, expect] of cases) {
      const got = await selected(hamlet, messages, narrow);
      const want = [...expect].sort();
      assert.equal(got, { fetched: want, matched: [...want], flagged: [...want] }, JSON.stringify(narrow));
    }
  }
});

narrows('unknown operators and operands, and a second `with`, are refused as Zulip refuses them', async ({ hamlet, messages }) => {
  const refusals: [Term[], string][] = [
    [[term('has', 'video')], 'Invalid narrow operator: unknown has operand'],
    [[term('is', 'shiny')], 'Invalid narrow operator: unknown is operand'],
    [[term('frobnicate', 'x')], 'Invalid narrow operator: unknown operator'],
    [[term('with', messages.dm), term('with', messages.link)], "Invalid narrow operator combination: Duplicate 'with' operators."],
    [[term('with', 'soon')], "Invalid narrow operator: Invalid 'with' operator"],
  ];
  for (const [narrow, msg] of refusals) {
    const response = await hamlet.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify(narrow) });
    assert.equal([response.status, response.body.msg], [400, msg], JSON.stringify(narrow));
  }
});

narrows('`with` a message the viewer may not read leaves the rest of the narrow', async ({ server, hamlet, messages }) => {
  const iago = await server.as('iago@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const secret = await send(othello, { type: 'private', to: JSON.stringify([await idOf(iago)]), content: 'not for hamlet' });
  const response = await hamlet.get('/messages', { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: JSON.stringify([term('with', secret), term('is', 'starred')]) });
  assert.equal(named(messages, (response.body.messages as { id: number }[]).map((message) => message.id)), ['star']);
});

narrows('has: follows an edit of the content, both ways', async ({ server, hamlet }) => {
  const othello = await server.as('othello@zulip.com');
  const id = await send(othello, { type: 'stream', to: 'Verona', topic: 'edited', content: 'no link yet' });
  const hasLink = async () => Object.keys((await hamlet.get('/messages/matches_narrow', { msg_ids: JSON.stringify([id]), narrow: JSON.stringify([term('has', 'link')]) })).body.messages as object).length === 1;
  assert.is(await hasLink(), false);
  assert.is((await othello.patch(`/messages/${id}`, { content: 'now https://example.com/page' })).status, 200);
  assert.is(await hasLink(), true);
  assert.is((await othello.patch(`/messages/${id}`, { content: 'link gone' })).status, 200);
  assert.is(await hasLink(), false);
});

narrows.run();
