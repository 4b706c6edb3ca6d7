// The lifecycle machines, walked through their graphs (@xstate/graph): from every reachable state,
// every event with every combination of its guard inputs. Each move the graph allows is one `move`
// makes; each one it refuses gives the first failing check's refusal, or `state`; every state is
// reachable and every refusal the machine names is met somewhere. A few facts of the spec's
// "States and transitions" table are checked by name on top.
import { getAdjacencyMap } from '@xstate/graph';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { channelLifecycle } from '../src/machines/channel.js';
import { move, type Lifecycle } from '../src/machines/lifecycle.js';
import { scheduledLifecycle } from '../src/machines/scheduled.js';
import { topicLifecycle } from '../src/machines/topic.js';
import { userLifecycle } from '../src/machines/user.js';

type Event = { type: string; [input: string]: unknown };

/** Every event of each type with every combination of its boolean inputs. */
function eventSpace(shapes: Record<string, readonly string[]>): Event[] {
  return Object.entries(shapes).flatMap(([type, inputs]) =>
    Array.from({ length: 2 ** inputs.length }, (_, bits) => ({ type, ...Object.fromEntries(inputs.map((input, index) => [input, (bits >> index) % 2 === 1])) })),
  );
}

const lifecycles: [string, Lifecycle<string, Event>, Event[]][] = [
  [
    'user',
    userLifecycle as unknown as Lifecycle<string, Event>,
    eventSpace({ 'user.deactivate': ['requesterIsAdmin', 'requesterIsSelf', 'requesterIsOwner', 'targetIsOwner', 'targetIsOnlyOwner'], 'user.reactivate': ['requesterIsAdmin'] }),
  ],
  ['channel', channelLifecycle as unknown as Lifecycle<string, Event>, eventSpace({ 'channel.archive': ['mayAdminister'], 'channel.unarchive': ['mayAdminister'] })],
  ['topic', topicLifecycle as unknown as Lifecycle<string, Event>, eventSpace({ 'topic.inherit': ['subscribed'], 'topic.mute': ['subscribed'], 'topic.unmute': ['subscribed'], 'topic.follow': ['subscribed'] })],
  ['scheduled message', scheduledLifecycle as unknown as Lifecycle<string, Event>, eventSpace({ 'scheduled.edit': ['newTime'], 'scheduled.send': [], 'scheduled.fail': [] })],
];

for (const [name, lifecycle, events] of lifecycles) {
  test(`${name}: every state is reachable, and move() follows the graph for every event`, () => {
    const graph = getAdjacencyMap(lifecycle.machine, { events });
    const reached = new Set(Object.values(graph).map(({ state }) => String(state.value)));
    assert.equal([...reached].sort(), [...lifecycle.states].sort(), 'reachable states');
    const refusals = new Set<string>();
    for (const { state, transitions } of Object.values(graph)) {
      // The graph's own type is loose for a machine typed as any machine.
      for (const { event, state: next } of Object.values(transitions) as { event: Event; state: { value: unknown } }[]) {
        const from = String(state.value);
        const outcome = move(lifecycle, from, event);
        const label = `${from} --${JSON.stringify(event)}→`;
        if (state.can(event)) assert.equal(outcome, { to: String(next.value) }, label);
        else {
          assert.ok('refused' in outcome, label);
          refusals.add((outcome as { refused: string }).refused);
        }
      }
    }
    const named = Object.values(lifecycle.checks).flatMap((checks) => (checks ?? []).map(([refusal]) => refusal));
    assert.equal(
      named.filter((refusal) => !refusals.has(refusal)),
      [],
      'every check refuses some move',
    );
  });
}

test('the spec table: an only owner stays; owners for owners; archived channels and failed messages as the spec says', () => {
  const base = { type: 'user.deactivate', requesterIsAdmin: true, requesterIsSelf: false, requesterIsOwner: true, targetIsOwner: true, targetIsOnlyOwner: true } as const;
  assert.equal(move(userLifecycle, 'active', base), { refused: 'onlyOwner' });
  assert.equal(move(userLifecycle, 'active', { ...base, requesterIsOwner: false, targetIsOnlyOwner: false }), { refused: 'ownerRequired' });
  assert.equal(move(userLifecycle, 'deactivated', { ...base, targetIsOnlyOwner: false }), { refused: 'state' });
  assert.equal(move(channelLifecycle, 'archived', { type: 'channel.unarchive', mayAdminister: true }), { to: 'active' });
  assert.equal(move(channelLifecycle, 'active', { type: 'channel.unarchive', mayAdminister: true }), { refused: 'state' });
  assert.equal(move(topicLifecycle, 'muted', { type: 'topic.mute', subscribed: true }), { to: 'muted' }, 'repeating a move succeeds');
  assert.equal(move(scheduledLifecycle, 'failed', { type: 'scheduled.edit', newTime: false }), { refused: 'newTimeRequired' });
  assert.equal(move(scheduledLifecycle, 'failed', { type: 'scheduled.send' }), { refused: 'state' }, 'a failed message is not retried by itself');
  assert.equal(move(scheduledLifecycle, 'sent', { type: 'scheduled.edit', newTime: true }), { refused: 'state' });
});

test.run();
