// The lifecycle machines, walked state by state: every legal move and every refused one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { moveUser, userLifecycle, userSnapshot, type UserLifecycleEvent } from '../src/machines/user.js';

const deactivate = (over: Partial<Extract<UserLifecycleEvent, { type: 'user.deactivate' }>> = {}): UserLifecycleEvent => ({
  type: 'user.deactivate',
  requesterIsAdmin: true,
  requesterIsOwner: false,
  targetIsOwner: false,
  targetIsOnlyOwner: false,
  ...over,
});

test('user: the graph has exactly the two states and their moves', () => {
  assert.equal(Object.keys(userLifecycle.states).sort(), ['active', 'deactivated']);
  assert.equal(userLifecycle.states.active!.events, ['user.deactivate']);
  assert.equal(userLifecycle.states.deactivated!.events, ['user.reactivate']);
});

test('user: an administrator deactivates an active user; an owner only by an owner; never the only owner', () => {
  assert.is(moveUser(true, deactivate()), 'deactivated');
  assert.is(moveUser(true, deactivate({ requesterIsAdmin: false })), undefined);
  assert.is(moveUser(true, deactivate({ targetIsOwner: true })), undefined, 'an administrator cannot deactivate an owner');
  assert.is(moveUser(true, deactivate({ targetIsOwner: true, requesterIsOwner: true })), 'deactivated');
  assert.is(moveUser(true, deactivate({ targetIsOwner: true, requesterIsOwner: true, targetIsOnlyOwner: true })), undefined);
});

test('user: only a deactivated user is reactivated, by an administrator', () => {
  assert.is(moveUser(false, { type: 'user.reactivate', requesterIsAdmin: true }), 'active');
  assert.is(moveUser(false, { type: 'user.reactivate', requesterIsAdmin: false }), undefined);
  assert.is(moveUser(true, { type: 'user.reactivate', requesterIsAdmin: true }), undefined, 'already active');
  assert.is(moveUser(false, deactivate()), undefined, 'already deactivated');
});

test('user: a restored snapshot answers can() like a fresh one, without replaying anything', () => {
  const restored = userSnapshot(false);
  assert.is(restored.value, 'deactivated');
  assert.ok(restored.can({ type: 'user.reactivate', requesterIsAdmin: true }));
  assert.not.ok(restored.can(deactivate()));
});

test('topic: every policy is reachable from every policy, repeats included; muting needs a subscription', async () => {
  const { moveTopic, topicVisibility, visibilityPolicies } = await import('../src/machines/topic.js');
  assert.equal(Object.keys(topicVisibility.states).sort(), [...visibilityPolicies].sort());
  for (const from of visibilityPolicies) {
    for (const to of visibilityPolicies) {
      assert.is(moveTopic(from, to, true), to, `${from} → ${to}`);
      assert.is(moveTopic(from, to, false), to === 'muted' ? undefined : to, `${from} → ${to} unsubscribed`);
    }
  }
});


test('channel: archive from active and unarchive from archived, both only with the right to administer', async () => {
  const { channelLifecycle, moveChannel } = await import('../src/machines/channel.js');
  assert.equal(Object.keys(channelLifecycle.states).sort(), ['active', 'archived']);
  assert.is(moveChannel(false, { type: 'channel.archive', mayAdminister: true }), true);
  assert.is(moveChannel(false, { type: 'channel.archive', mayAdminister: false }), undefined);
  assert.is(moveChannel(true, { type: 'channel.archive', mayAdminister: true }), undefined, 'already archived');
  assert.is(moveChannel(true, { type: 'channel.unarchive', mayAdminister: true }), false);
  assert.is(moveChannel(true, { type: 'channel.unarchive', mayAdminister: false }), undefined);
  assert.is(moveChannel(false, { type: 'channel.unarchive', mayAdminister: true }), undefined, 'not archived');
});

test('scheduled message: scheduled → sent or failed; failed → scheduled only by an edit with a new time; sent is final', async () => {
  const { moveScheduled, scheduledLifecycle } = await import('../src/machines/scheduled.js');
  assert.equal(Object.keys(scheduledLifecycle.states).sort(), ['failed', 'scheduled', 'sent']);
  assert.is(moveScheduled('scheduled', { type: 'scheduled.send' }), 'sent');
  assert.is(moveScheduled('scheduled', { type: 'scheduled.fail' }), 'failed');
  assert.is(moveScheduled('scheduled', { type: 'scheduled.edit', newTime: false }), 'scheduled');
  assert.is(moveScheduled('failed', { type: 'scheduled.edit', newTime: false }), undefined, 'a failed message needs a new time');
  assert.is(moveScheduled('failed', { type: 'scheduled.edit', newTime: true }), 'scheduled');
  assert.is(moveScheduled('failed', { type: 'scheduled.send' }), undefined, 'a failed message is not retried by itself');
  for (const event of [{ type: 'scheduled.send' }, { type: 'scheduled.fail' }, { type: 'scheduled.edit', newTime: true }] as const) {
    assert.is(moveScheduled('sent', event), undefined, `sent refuses ${event.type}`);
  }
});

test.run();
