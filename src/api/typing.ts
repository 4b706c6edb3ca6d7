// Typing endpoints: POST /typing, POST /messages/{message_id}/typing.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';

export const setTypingStatus = (request: UserRequest, params: Params<typeof schemas.setTypingStatus>) =>
  request.realm.ask(
    'typing.set',
    request.user.userId,
    params.type === 'stream' || params.type === 'channel' ? { op: params.op, type: 'stream', channelId: params.stream_id, topic: params.topic } : { op: params.op, type: 'direct', to: params.to },
  );

export const setEditTypingStatus = (request: UserRequest, params: Params<typeof schemas.setTypingStatusForMessageEdit>) =>
  request.realm.ask('typing.editMessage', request.user.userId, { messageId: params.message_id, op: params.op });
