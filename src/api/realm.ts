// Organization settings: PATCH /realm, and a test of Welcome Bot's custom text.
import type * as schemas from '../../schemas/index.js';
import type { UserRequest } from '../http/route.js';
import type { Params } from '../http/validation.js';

export const updateRealm = (request: UserRequest, params: Params<typeof schemas.updateRealm>) => request.realm.ask('realm.update', request.user.userId, params);

export const updateUserSettingsDefaults = (request: UserRequest, params: Params<typeof schemas.updateRealmUserSettingsDefaults>) =>
  request.realm.ask('settings.updateDefaults', request.user.userId, { settings: params });

export const testWelcomeMessage = (request: UserRequest, params: Params<typeof schemas.testWelcomeBotCustomMessage>) =>
  request.realm.ask('realm.testWelcomeMessage', request.user.userId, { text: params.welcome_message_custom_text });
