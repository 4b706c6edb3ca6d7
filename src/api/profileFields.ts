// Custom profile field endpoints.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';

export async function getProfileFields(request: UserRequest) {
  return { custom_fields: await request.realm.ask('fields.list', request.user.userId, {}) };
}

export const createProfileField = (request: UserRequest, params: Params<typeof schemas.createCustomProfileField>) =>
  request.realm.ask('fields.create', request.user.userId, {
    name: params.name ?? '',
    hint: params.hint ?? '',
    fieldType: params.field_type,
    fieldData: params.field_data ?? {},
    displayInProfileSummary: params.display_in_profile_summary ?? false,
    required: params.required ?? false,
    editableByUser: params.editable_by_user ?? true,
  });

export const updateProfileField = (request: UserRequest, params: Params<typeof schemas.updateCustomProfileField>) =>
  request.realm.ask('fields.update', request.user.userId, {
    id: params.field_id,
    name: params.name,
    hint: params.hint,
    fieldData: params.field_data,
    displayInProfileSummary: params.display_in_profile_summary,
    required: params.required,
    editableByUser: params.editable_by_user,
  });

export const reorderProfileFields = (request: UserRequest, params: Params<typeof schemas.reorderCustomProfileFields>) =>
  request.realm.ask('fields.reorder', request.user.userId, { order: params.order });

export const updateOwnProfileData = (request: UserRequest, params: Params<typeof schemas.updateProfileData>) =>
  request.realm.ask('profile.update', request.user.userId, { data: params.data });
