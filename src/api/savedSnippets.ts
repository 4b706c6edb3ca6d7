// Saved snippet endpoints.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';

export async function getSavedSnippets(request: UserRequest) {
  return { saved_snippets: await request.realm.ask('savedSnippets.list', request.user.userId, {}) };
}

export const createSavedSnippet = (request: UserRequest, params: Params<typeof schemas.createSavedSnippet>) =>
  request.realm.ask('savedSnippets.create', request.user.userId, { title: params.title, content: params.content });

export const editSavedSnippet = (request: UserRequest, params: Params<typeof schemas.editSavedSnippet>) =>
  request.realm.ask('savedSnippets.update', request.user.userId, { id: params.saved_snippet_id, title: params.title, content: params.content });

export const deleteSavedSnippet = (request: UserRequest, params: Params<typeof schemas.deleteSavedSnippet>) =>
  request.realm.ask('savedSnippets.delete', request.user.userId, { id: params.saved_snippet_id });
