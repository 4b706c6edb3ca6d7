// Polls, to-do lists and /me (Zulip's widgets and submessages): a /poll or /todo message carries its
// widget submessage in fetches and events, POST /submessage adds the widget's events for every
// reader to hear and later fetches to show, refusals change nothing, and /me messages are marked.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRequiresCredentials } from './helpers/assert.js';
import type { ApiClient } from './helpers/client.js';
import { applyEvent, comparable, pollEvents, register, type Event } from './helpers/events.js';
import { assertEventMatchesReference, assertMatchesComponent, assertMatchesReference } from './helpers/reference.js';
import { IN_MEMORY, startTestServer, testConfig, type TestServer } from './helpers/server.js';

const widgets = suite<{ server: TestServer }>('polls, to-do lists and /me');

widgets.before(async (context) => {
  context.server = await startTestServer(IN_MEMORY);
});
widgets.after(async ({ server }) => server.stop());

interface Submessage {
  id: number;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}
type Message = { id: number; is_me_message: boolean; submessages: Submessage[]; content: string };

const userId = async (client: ApiClient): Promise<number> => Number((await client.get('/users/me')).body.user_id);

async function send(client: ApiClient, params: Record<string, unknown>): Promise<number> {
  const response = await client.post('/messages', params);
  assert.is(response.status, 200, JSON.stringify(response.body));
  return Number(response.body.id);
}

/** The message as GET /messages/{id} shows it (validated against the reference). */
async function fetched(client: ApiClient, id: number): Promise<Message> {
  const response = await client.get(`/messages/${id}`);
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('GET /messages/{message_id}', response.body);
  return response.body.message as Message;
}

/** The message as GET /messages shows it (validated against the reference). */
async function inWindow(client: ApiClient, id: number): Promise<Message> {
  const response = await client.get('/messages', { anchor: id, num_before: 0, num_after: 0, narrow: [] });
  assert.is(response.status, 200, JSON.stringify(response.body));
  assertMatchesReference('GET /messages', response.body);
  return (response.body.messages as Message[])[0]!;
}

const widgetOf = (message: Message) => ({ ...message.submessages[0]!, content: JSON.parse(message.submessages[0]!.content) as unknown });
const eventsOf = (message: Message) => message.submessages.slice(1).map((submessage) => JSON.parse(submessage.content) as unknown);

async function submit(client: ApiClient, messageId: number, content: unknown, msgType = 'widget') {
  return client.post('/submessage', { message_id: messageId, msg_type: msgType, content: typeof content === 'string' ? content : JSON.stringify(content) });
}

async function accepted(client: ApiClient, messageId: number, content: unknown): Promise<void> {
  const response = await submit(client, messageId, content);
  assert.is(response.status, 200, JSON.stringify(response.body));
  assert.equal(response.body, { result: 'success', msg: '' });
}

widgets('a /poll message carries its sender’s widget submessage in fetches and in the message event', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const { queueId } = await register(othello, { event_types: ['message'] });
  const content = '/poll Where shall we meet?\n- The castle\n* The graveyard\n\n  The ramparts  ';
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'poll', content });
  const expected = {
    message_id: id,
    sender_id: await userId(hamlet),
    msg_type: 'widget',
    content: { widget_type: 'poll', extra_data: { question: 'Where shall we meet?', options: ['The castle', 'The graveyard', 'The ramparts'] } },
  };
  const { id: submessageId, ...widget } = widgetOf(await fetched(othello, id));
  assert.equal(widget, expected);
  assert.type(submessageId, 'number');
  assert.equal(widgetOf(await inWindow(hamlet, id)), { id: submessageId, ...expected });
  const [event] = await pollEvents(othello, queueId, 1);
  assertEventMatchesReference(event!);
  assert.equal(widgetOf((event as unknown as { message: Message }).message), { id: submessageId, ...expected });
  // The message's own content is kept as sent: clients show the widget from the submessage.
  assert.is((await othello.get(`/messages/${id}`, { apply_markdown: false })).body.raw_content, content);
});

widgets('a /todo message’s widget has the title and tasks, a description after the first ": "', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const id = await send(hamlet, { type: 'direct', to: [await userId(othello)], content: '/todo Before the play\nLearn lines: act 3: scene 1\n- Hire actors\n' });
  assert.equal(widgetOf(await fetched(othello, id)).content, {
    widget_type: 'todo',
    extra_data: { task_list_title: 'Before the play', tasks: [{ task: 'Learn lines', desc: 'act 3: scene 1' }, { task: 'Hire actors', desc: '' }] },
  });
  const bare = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'todo', content: '/todo' });
  assert.equal(widgetOf(await fetched(hamlet, bare)).content, { widget_type: 'todo', extra_data: { task_list_title: '', tasks: [] } });
  for (const plain of ['/polling is not a poll', 'a /poll later on', '/me is no widget']) {
    const other = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'todo', content: plain });
    assert.equal((await fetched(hamlet, other)).submessages, [], plain);
  }
});

widgets('votes, options, tasks and ticks reach every reader as submessage events and stay in later fetches', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const desdemona = await server.as('desdemona@zulip.com');
  const poll = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'votes', content: '/poll Tea or coffee?\nTea\nCoffee' });
  const todo = await send(hamlet, { type: 'direct', to: [await userId(othello)], content: '/todo Chores\nDishes' });
  const queues = new Map<ApiClient, Awaited<ReturnType<typeof register>>>();
  for (const client of [hamlet, othello, iago, desdemona]) queues.set(client, await register(client, { client_gravatar: false }));
  const hamletId = await userId(hamlet);
  const vote = { type: 'vote', key: 'canned,0', vote: 1 };
  const option = { type: 'new_option', idx: 1, option: 'Water' };
  const unvote = { type: 'vote', key: 'canned,0', vote: -1 };
  await accepted(othello, poll, vote);
  await accepted(desdemona, poll, option);
  await accepted(hamlet, poll, { type: 'question', question: 'Tea, coffee or water?' });
  await accepted(othello, poll, unvote);
  const task = { type: 'new_task', key: 1, task: 'Laundry', desc: 'whites', completed: false };
  await accepted(othello, todo, task);
  await accepted(hamlet, todo, { type: 'strike', key: `1,${await userId(othello)}` });
  await accepted(hamlet, todo, { type: 'new_task_list_title', title: 'Weekend chores' });
  await server.parley.realms.idle();
  const submessageEvents = async (client: ApiClient): Promise<Event[]> => {
    const { queueId } = queues.get(client)!;
    const events = (await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true })).body.events as Event[];
    return events.filter((event) => event.type === 'submessage');
  };
  const summary = (events: Event[]) => events.map((event) => [event.message_id, (JSON.parse(String(event.content)) as { type: string }).type]);
  const pollTypes = [[poll, 'vote'], [poll, 'new_option'], [poll, 'question'], [poll, 'vote']];
  const todoTypes = [[todo, 'new_task'], [todo, 'strike'], [todo, 'new_task_list_title']];
  assert.equal(summary(await submessageEvents(hamlet)), [...pollTypes, ...todoTypes]);
  assert.equal(summary(await submessageEvents(othello)), [...pollTypes, ...todoTypes]);
  assert.equal(summary(await submessageEvents(iago)), pollTypes, 'a subscriber of the channel; the direct message is not iago’s');
  assert.equal(summary(await submessageEvents(desdemona)), [[poll, 'new_option']], 'not subscribed: hears only of what she adds');
  const [first] = await submessageEvents(iago);
  assertEventMatchesReference(first!);
  const pollMessage = await fetched(iago, poll);
  const { id: _id, ...firstFields } = first!;
  assert.equal(firstFields, {
    type: 'submessage',
    msg_type: 'widget',
    content: JSON.stringify(vote),
    submessage_id: pollMessage.submessages[1]!.id,
    sender_id: await userId(othello),
    message_id: poll,
  });
  assert.equal(eventsOf(pollMessage), [vote, option, { type: 'question', question: 'Tea, coffee or water?' }, unvote]);
  assert.equal(
    pollMessage.submessages.map((submessage) => submessage.sender_id),
    [hamletId, await userId(othello), await userId(desdemona), hamletId, await userId(othello)],
  );
  const ids = pollMessage.submessages.map((submessage) => submessage.id);
  assert.equal(ids, [...ids].sort((a, b) => a - b), 'submessages in the order they were added');
  assert.equal(eventsOf(await inWindow(othello, todo)), [task, { type: 'strike', key: `1,${await userId(othello)}` }, { type: 'new_task_list_title', title: 'Weekend chores' }]);
  const { queueId, state } = queues.get(othello)!;
  for (const event of await pollEvents(othello, queueId, 1)) applyEvent(state, event);
  assert.equal(comparable(state), comparable((await register(othello, { client_gravatar: false })).state));
});

widgets('refusals change nothing: no such message, an unreadable one, no widget, a bad msg_type, bad JSON, invalid widget data', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const othello = await server.as('othello@zulip.com');
  const iago = await server.as('iago@zulip.com');
  const { queueId } = await register(hamlet, { event_types: ['submessage'] });
  const poll = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'refusals', content: '/poll Yes?\nYes\nNo' });
  const todo = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'refusals', content: '/todo Tasks' });
  const plain = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'refusals', content: 'no widget here' });
  const secret = await send(iago, { type: 'stream', to: 'core team', topic: 'secret', content: '/poll Secret?' });
  const vote = { type: 'vote', key: 'canned,0', vote: 1 };
  const cases: [ApiClient, number, unknown, string, string?][] = [
    [othello, 99_999_999, vote, 'Invalid message(s)'],
    [othello, secret, vote, 'Invalid message(s)'],
    [othello, plain, vote, 'You cannot attach a submessage to this message.'],
    [hamlet, plain, vote, 'You cannot attach a submessage to this message.'],
    [othello, poll, vote, 'Invalid msg_type', 'poll'],
    [othello, poll, '{"type": "vote",', 'Invalid json for submessage'],
    [othello, poll, [vote], 'poll data is not a dict'],
    [othello, poll, { key: 'canned,0', vote: 1 }, 'poll data key is missing: type'],
    [othello, poll, { type: 'strike', key: '1,2' }, 'Unknown type for poll data: strike'],
    [othello, poll, { type: 'vote', key: 'canned,0', vote: 2 }, 'Invalid poll data["vote"]'],
    [othello, poll, { type: 'vote', key: 'canned,0' }, 'poll data key is missing: vote'],
    [othello, poll, { ...vote, extra: true }, 'Unexpected arguments: extra'],
    [othello, poll, { type: 'new_option', idx: 1001, option: 'Maybe' }, 'Invalid poll data["idx"]'],
    [othello, poll, { type: 'question', question: 'Mine now?' }, "You can't edit a question unless you are the author."],
    [othello, todo, { type: 'new_task', key: 1, task: 'Sweep', desc: '' }, 'todo data key is missing: completed'],
    [othello, todo, { type: 'strike', key: 1 }, 'Invalid todo data["key"]'],
    [othello, todo, { type: 'new_task_list_title', title: 'Mine' }, "You can't edit the task list title unless you are the author."],
    [othello, todo, vote, 'Unknown type for todo data: vote'],
  ];
  for (const [client, messageId, content, msg, msgType] of cases) {
    const response = await submit(client, messageId, content, msgType);
    assert.equal([response.status, response.body.code, response.body.msg], [400, 'BAD_REQUEST', msg], JSON.stringify(content));
    assertMatchesComponent('CodedError', response.body);
  }
  assert.is((await submit(othello, poll, vote)).status, 200);
  const [event] = await pollEvents(hamlet, queueId, 1);
  assert.equal([event!.type, event!.message_id], ['submessage', poll], 'the first event is the one accepted submission');
  assert.is((await fetched(hamlet, poll)).submessages.length, 2);
  assert.is((await fetched(hamlet, todo)).submessages.length, 1);
  assert.equal((await fetched(hamlet, plain)).submessages, []);
  assert.is((await fetched(iago, secret)).submessages.length, 1);
});

widgets('/me messages (content starting "/me ") are marked is_me_message and rendered as any text', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const cases: [string, boolean][] = [
    ['/me waves', true],
    // Zulip's rule today (Message.is_status_message) is the prefix alone: more lines still count.
    ['/me waves\nand bows', true],
    ['/meet at noon', false],
    ['/me', false],
    ['> /me quotes', false],
  ];
  for (const [content, isMe] of cases) {
    const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'me', content });
    const message = await fetched(hamlet, id);
    assert.is(message.is_me_message, isMe, content);
    assert.is((await inWindow(hamlet, id)).is_me_message, isMe, content);
  }
  const waves = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'me', content: '/me waves' });
  assert.is((await fetched(hamlet, waves)).content, '<p>/me waves</p>');
  const edited = await hamlet.patch(`/messages/${waves}`, { content: 'waves' });
  assert.is(edited.status, 200, JSON.stringify(edited.body));
  assert.is((await fetched(hamlet, waves)).is_me_message, false, 'an edit recomputes it');
});

widgets('submessages are stored with their message: a restart keeps the widget and its events', async () => {
  const config = testConfig();
  const first = await startTestServer(config);
  const hamlet = await first.as('hamlet@zulip.com');
  const id = await send(hamlet, { type: 'stream', to: 'Verona', topic: 'durable', content: '/poll Still here?\nYes' });
  await accepted(hamlet, id, { type: 'vote', key: 'canned,0', vote: 1 });
  const before = (await fetched(hamlet, id)).submessages;
  await first.parley.close();
  const second = await startTestServer(config);
  try {
    const again = await second.as('hamlet@zulip.com');
    assert.equal((await fetched(again, id)).submessages, before);
    await accepted(again, id, { type: 'vote', key: 'canned,0', vote: -1 });
    const ids = (await fetched(again, id)).submessages.map((submessage) => submessage.id);
    assert.ok(ids[2]! > ids[1]!, 'new submessage IDs continue after the restart');
  } finally {
    await second.stop();
  }
});

widgets('POST /submessage requires credentials', async ({ server }) => {
  await assertRequiresCredentials(server.anonymous, [['POST', '/submessage']]);
});

widgets.run();
