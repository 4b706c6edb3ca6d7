// Linkifier endpoints.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';

const definition = (params: Params<typeof schemas.addLinkifier>) => ({
  pattern: params.pattern,
  urlTemplate: params.url_template,
  reverseTemplate: params.reverse_template ?? null,
  alternativeUrlTemplates: params.alternative_url_templates ?? [],
});

export async function getLinkifiers(request: UserRequest) {
  return { linkifiers: await request.realm.ask('linkifiers.list', request.user.userId, {}) };
}

export const createLinkifier = (request: UserRequest, params: Params<typeof schemas.addLinkifier>) =>
  request.realm.ask('linkifiers.create', request.user.userId, definition(params));

export const updateLinkifier = (request: UserRequest, params: Params<typeof schemas.updateLinkifier>) =>
  request.realm.ask('linkifiers.update', request.user.userId, { ...definition(params), id: params.filter_id });

export const deleteLinkifier = (request: UserRequest, params: Params<typeof schemas.removeLinkifier>) =>
  request.realm.ask('linkifiers.delete', request.user.userId, { id: params.filter_id });

export const reorderLinkifiers = (request: UserRequest, params: Params<typeof schemas.reorderLinkifiers>) =>
  request.realm.ask('linkifiers.reorder', request.user.userId, { order: params.ordered_linkifier_ids });
