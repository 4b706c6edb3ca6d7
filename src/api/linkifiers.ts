// Linkifier endpoints.
import type { UserRequest } from '../http/route.js';

interface DefinitionParams {
  pattern: string;
  url_template: string;
  reverse_template?: string | null;
  alternative_url_templates?: string[];
}

const definition = (params: DefinitionParams) => ({
  pattern: params.pattern,
  urlTemplate: params.url_template,
  reverseTemplate: params.reverse_template ?? null,
  alternativeUrlTemplates: params.alternative_url_templates ?? [],
});

export async function getLinkifiers(request: UserRequest) {
  return { linkifiers: await request.realm.ask('linkifiers.list', request.user.userId, {}) };
}

export const createLinkifier = (request: UserRequest, params: DefinitionParams) =>
  request.realm.ask('linkifiers.create', request.user.userId, definition(params));

export const updateLinkifier = (request: UserRequest, params: DefinitionParams & { filter_id: number }) =>
  request.realm.ask('linkifiers.update', request.user.userId, { ...definition(params), id: params.filter_id });

export const deleteLinkifier = (request: UserRequest, params: { filter_id: number }) =>
  request.realm.ask('linkifiers.delete', request.user.userId, { id: params.filter_id });

export const reorderLinkifiers = (request: UserRequest, params: { ordered_linkifier_ids: number[] }) =>
  request.realm.ask('linkifiers.reorder', request.user.userId, { order: params.ordered_linkifier_ids });
