// Topic visibility per user (spec endpoint 4, and POST /user_topics over the same state), through
// the topic machine; `user_topic` and legacy `muted_topics` events; register state.
import { normalizeTopic, shownTopic } from '../../messages/emptyTopic.js';
import type { ChannelRecord } from '../../channels/records.js';
import { errors } from '../../errors.js';
import { move } from '../../machines/lifecycle.js';
import { topicEventFor, topicLifecycle, visibilityPolicies, type TopicVisibility } from '../../machines/topic.js';
import type { UserTopicRecord } from '../../messages/records.js';
import { writeCommand, type CommandContext, type ReadContext } from '../context.js';
import { limits } from './limits.js';

export interface TopicTarget {
  channelId?: number;
  channelName?: string;
  topic: string;
}

function targetChannel(ctx: CommandContext, target: TopicTarget): ChannelRecord {
  if ((target.channelId === undefined) === (target.channelName === undefined)) throw errors.badRequest("Please choose one: 'stream' or 'stream_id'.");
  const channel = target.channelId !== undefined ? ctx.state.channels.get(target.channelId) : ctx.state.channelByName(target.channelName!);
  if (!channel) throw target.channelId !== undefined ? errors.badRequest('Invalid channel ID') : errors.badRequest(`Invalid channel name '${target.channelName}'`);
  return channel;
}

function userTopics(ctx: ReadContext, userId: number): UserTopicRecord[] {
  return ctx.store.userTopics.ofOwner(ctx.ownerOf(userId));
}

function mutedTopics(ctx: ReadContext, userId: number): [string, string, number][] {
  return userTopics(ctx, userId)
    .filter((row) => row.policy === 1 && ctx.state.channels.has(row.channelId))
    .map((row) => [ctx.state.channels.get(row.channelId)!.name, row.topic, row.lastUpdated]);
}

const userTopicView = (row: UserTopicRecord) => ({ stream_id: row.channelId, topic_name: row.topic, last_updated: row.lastUpdated, visibility_policy: row.policy });

export const userTopicCommands = {
  'topics.setVisibility': writeCommand((ctx, input: TopicTarget & { policy: TopicVisibility }) => {
    const user = ctx.user;
    const channel = targetChannel(ctx, input);
    const topic = normalizeTopic(input.topic);
    if ([...topic].length > limits.max_topic_length) throw errors.badRequest(`topic is too long (limit: ${limits.max_topic_length} characters)`);
    const owner = ctx.ownerOf(user.id);
    const current = visibilityPolicies[ctx.store.userTopics.get(owner, channel.id, topic.toLowerCase())?.policy ?? 0]!;
    const outcome = move(topicLifecycle, current, { type: topicEventFor[input.policy], subscribed: ctx.state.isSubscribed(channel.id, user.id) });
    if ('refused' in outcome) throw errors.badRequest(`Not subscribed to channel ID ${channel.id}`);
    const row: UserTopicRecord = { channelId: channel.id, topic, policy: visibilityPolicies.indexOf(outcome.to), lastUpdated: ctx.now };
    if (row.policy === 0) ctx.store.userTopics.remove(owner, channel.id, topic.toLowerCase());
    else ctx.store.userTopics.put(owner, row);
    ctx.emit({ type: 'user_topic', ...userTopicView(row) }, [user.id]);
    ctx.emit({ type: 'muted_topics', muted_topics: mutedTopics(ctx, user.id) }, [user.id]);
    return {};
  }),
};

/** register's user_topics; the empty topic by its display name for clients that do not take it. */
export function userTopicsInitialState(ctx: ReadContext, allowEmptyTopicName: boolean) {
  return { user_topics: userTopics(ctx, ctx.user.id).map((row) => ({ ...userTopicView(row), topic_name: shownTopic(row.topic, allowEmptyTopicName) })) };
}

export function mutedTopicsInitialState(ctx: ReadContext) {
  return { muted_topics: mutedTopics(ctx, ctx.user.id) };
}
