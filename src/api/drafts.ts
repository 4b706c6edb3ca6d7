// Draft endpoints.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';

export async function getDrafts(request: UserRequest) {
  const drafts = await request.realm.ask('drafts.list', request.user.userId, {});
  return { count: drafts.length, drafts };
}

export const createDrafts = (request: UserRequest, params: Params<typeof schemas.createDrafts>) =>
  request.realm.ask('drafts.create', request.user.userId, { drafts: params.drafts });

export const updateDraft = (request: UserRequest, params: Params<typeof schemas.editDraft>) =>
  request.realm.ask('drafts.update', request.user.userId, { id: params.draft_id, draft: params.draft });

export const deleteDraft = (request: UserRequest, params: Params<typeof schemas.deleteDraft>) =>
  request.realm.ask('drafts.delete', request.user.userId, { id: params.draft_id });
