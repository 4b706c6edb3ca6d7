// Scheduled-message endpoints (spec endpoint 3 and the rest).
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';
import type { ScheduledType } from '../realm/commands/scheduled.js';
import { readBySenderDefault } from './messages.js';

type ApiType = 'direct' | 'channel' | 'stream' | 'private';

/** `direct` and `channel` are the modern names of Zulip's `private` and `stream`. */
const storedType = (type: ApiType): ScheduledType => (type === 'direct' || type === 'private' ? 'private' : 'stream');

export async function getScheduledMessages(request: UserRequest) {
  return { scheduled_messages: await request.realm.ask('scheduled.list', request.user.userId, {}) };
}

export const createScheduledMessage = (request: UserRequest, params: Params<typeof schemas.createScheduledMessage>) =>
  request.realm.ask('scheduled.create', request.user.userId, {
    type: storedType(params.type),
    to: params.to,
    topic: params.topic ?? null,
    content: params.content,
    deliverAt: params.scheduled_delivery_timestamp,
    readBySender: params.read_by_sender ?? null,
    clientReadsBySender: readBySenderDefault(request.client),
    client: request.client,
  });

export const updateScheduledMessage = (request: UserRequest, params: Params<typeof schemas.updateScheduledMessage>) =>
  request.realm.ask('scheduled.update', request.user.userId, {
    id: params.scheduled_message_id,
    type: params.type === undefined ? undefined : storedType(params.type),
    to: params.to,
    topic: params.topic,
    content: params.content,
    deliverAt: params.scheduled_delivery_timestamp,
    client: request.client,
  });

export const deleteScheduledMessage = (request: UserRequest, params: Params<typeof schemas.deleteScheduledMessage>) =>
  request.realm.ask('scheduled.delete', request.user.userId, { id: params.scheduled_message_id });
