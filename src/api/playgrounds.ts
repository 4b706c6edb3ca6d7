// Code playground endpoints.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';

export const addPlayground = (request: UserRequest, params: Params<typeof schemas.addCodePlayground>) =>
  request.realm.ask('playgrounds.create', request.user.userId, { name: params.name, pygmentsLanguage: params.pygments_language, urlTemplate: params.url_template });

export const removePlayground = (request: UserRequest, params: Params<typeof schemas.removeCodePlayground>) =>
  request.realm.ask('playgrounds.delete', request.user.userId, { id: params.playground_id });
