// Bot storage endpoints: a bot's own key-value strings (Zulip's zerver/views/storage.py).
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';

export const getBotStorage = (request: UserRequest, params: Params<typeof schemas.getBotStorage>) =>
  request.realm.ask('botStorage.get', request.user.userId, { keys: params.keys });

export const updateBotStorage = (request: UserRequest, params: Params<typeof schemas.updateBotStorage>) =>
  request.realm.ask('botStorage.update', request.user.userId, { entries: Object.entries(params.storage) });

export const removeBotStorage = (request: UserRequest, params: Params<typeof schemas.removeBotStorage>) =>
  request.realm.ask('botStorage.remove', request.user.userId, { keys: params.keys });
