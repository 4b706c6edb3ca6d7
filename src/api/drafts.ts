// Draft endpoints.
import type { UserRequest } from '../http/route.js';
import type { DraftInput } from '../realm/commands/drafts.js';

export async function getDrafts(request: UserRequest) {
  const drafts = await request.realm.ask('drafts.list', request.user.userId, {});
  return { count: drafts.length, drafts };
}

export const createDrafts = (request: UserRequest, params: { drafts: DraftInput[] }) =>
  request.realm.ask('drafts.create', request.user.userId, { drafts: params.drafts });

export const updateDraft = (request: UserRequest, params: { draft_id: number; draft: DraftInput }) =>
  request.realm.ask('drafts.update', request.user.userId, { id: params.draft_id, draft: params.draft });

export const deleteDraft = (request: UserRequest, params: { draft_id: number }) =>
  request.realm.ask('drafts.delete', request.user.userId, { id: params.draft_id });
