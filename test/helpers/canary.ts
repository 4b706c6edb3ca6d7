// The canary: a unique token planted in everything of a private conversation — a private channel's
// name and description, a message's content and topic, a direct message — then planted anew by
// edits (a rename, a new description, an edited message, a moved topic, a reply, a star) and by a
// new subscriber. `tracesOf` finds any trace of it in what a user received: the token in the text,
// or the channel's or the messages' IDs where a channel or a message is named.
import { randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { Cast } from './cast.js';
import type { ApiClient, Params } from './client.js';
import { numbersUnder } from './targets.js';

export interface Canary {
  token: string;
  channelId: number;
  /** The channel message and the direct message. */
  messageIds: number[];
  /** What one would ask for it by: the channel's name and the topic, as they are now. */
  channelName: string;
  topic: string;
}

async function ok(client: ApiClient, method: string, path: string, params: Params): Promise<Record<string, unknown>> {
  const response = await client.call(method, path, params);
  assert.is(response.status, 200, `${method} ${path}: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A status everyone in the realm hears of, set first: a listener who does not hear it was not
 * listening. */
export const CONTROL = 'Heard by everyone in the realm';

/** Plants the canary, as the administrator, in a channel of theirs and the member's; `subscriber`
 * joins it afterwards. */
export async function plantCanary(cast: Cast, subscriberId: number): Promise<Canary> {
  const token = `kanari${randomBytes(6).toString('hex')}`;
  const { administrator: admin, member } = cast.users;
  const name = `${token}-name`;
  await ok(admin, 'POST', '/users/me/status', { status_text: CONTROL });
  await ok(admin, 'POST', '/users/me/subscriptions', { subscriptions: [{ name, description: `${token}-description` }], invite_only: true, principals: [cast.ids.administrator, cast.ids.member] });
  const channelId = Number((await ok(admin, 'GET', '/get_stream_id', { stream: name })).stream_id);
  const messageId = Number((await ok(admin, 'POST', '/messages', { type: 'stream', to: channelId, topic: `${token}-topic`, content: `${token}-content` })).id);
  const directId = Number((await ok(admin, 'POST', '/messages', { type: 'direct', to: [cast.ids.member], content: `${token}-direct` })).id);
  const canary = { token, channelId, messageIds: [messageId, directId], channelName: `${token}-renamed`, topic: `${token}-moved` };
  await ok(admin, 'PATCH', `/streams/${channelId}`, { new_name: canary.channelName, description: `${token}-redescribed` });
  await ok(admin, 'PATCH', `/messages/${messageId}`, { content: `${token}-edited` });
  await ok(admin, 'PATCH', `/messages/${messageId}`, { topic: canary.topic, propagate_mode: 'change_all' });
  await ok(member, 'POST', '/messages', { type: 'stream', to: channelId, topic: canary.topic, content: `${token}-reply` });
  await ok(member, 'POST', '/messages', { type: 'direct', to: [cast.ids.administrator], content: `${token}-direct-reply` });
  await ok(member, 'POST', '/messages/flags', { messages: [messageId, directId], op: 'add', flag: 'starred' });
  await ok(admin, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: canary.channelName }], principals: [subscriberId] });
  return canary;
}

/** Objects that are messages: an `id` beside a sender. */
const messageIdsIn = (value: unknown): number[] => {
  if (Array.isArray(value)) return value.flatMap(messageIdsIn);
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  const own = 'sender_id' in record && typeof record.id === 'number' ? [record.id] : [];
  return [...own, ...Object.values(record).flatMap(messageIdsIn)];
};

/** The canary's traces in a body or an event: the token anywhere in `text` (what the receiver
 * sent, `echoed`, left out), and, in `value`, the channel's ID where a channel is named or a
 * canary message's ID where a message is. */
export function tracesOf(canary: Canary, text: string, value: unknown, echoed: readonly string[] = []): string[] {
  const traces: string[] = [];
  const unechoed = echoed.reduce((rest, input) => rest.split(input).join(''), text);
  const at = unechoed.toLowerCase().indexOf(canary.token);
  if (at >= 0) traces.push(`the token: …${unechoed.slice(Math.max(0, at - 80), at + 60)}…`);
  if (numbersUnder(value, /^stream_ids?$/).includes(canary.channelId)) traces.push(`the private channel's ID ${canary.channelId}`);
  const messages = [...numbersUnder(value, /(^|_)message_ids?$|^messages$/), ...messageIdsIn(value)].filter((id) => canary.messageIds.includes(id));
  if (messages.length > 0) traces.push(`the canary messages' IDs ${messages.join(', ')}`);
  return traces;
}
