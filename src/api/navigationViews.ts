// Navigation view endpoints.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';

export async function getNavigationViews(request: UserRequest) {
  return { navigation_views: await request.realm.ask('navigationViews.list', request.user.userId, {}) };
}

export const addNavigationView = (request: UserRequest, params: Params<typeof schemas.addNavigationView>) =>
  request.realm.ask('navigationViews.create', request.user.userId, { fragment: params.fragment, isPinned: params.is_pinned, name: params.name });

export const editNavigationView = (request: UserRequest, params: Params<typeof schemas.editNavigationView>) =>
  request.realm.ask('navigationViews.update', request.user.userId, { fragment: params.fragment, isPinned: params.is_pinned, name: params.name });

export const removeNavigationView = (request: UserRequest, params: Params<typeof schemas.removeNavigationView>) =>
  request.realm.ask('navigationViews.delete', request.user.userId, { fragment: params.fragment });
