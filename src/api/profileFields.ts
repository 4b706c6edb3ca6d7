// Custom profile field endpoints.
import type { UserRequest } from '../http/route.js';

export async function getProfileFields(request: UserRequest) {
  return { custom_fields: await request.realm.ask('fields.list', request.user.userId, {}) };
}

interface FieldParams {
  name?: string;
  hint?: string;
  field_data?: Record<string, unknown>;
  display_in_profile_summary?: boolean;
  required?: boolean;
  editable_by_user?: boolean;
}

export const createProfileField = (request: UserRequest, params: FieldParams & { field_type: number }) =>
  request.realm.ask('fields.create', request.user.userId, {
    name: params.name ?? '',
    hint: params.hint ?? '',
    fieldType: params.field_type,
    fieldData: params.field_data ?? {},
    displayInProfileSummary: params.display_in_profile_summary ?? false,
    required: params.required ?? false,
    editableByUser: params.editable_by_user ?? true,
  });

export const updateProfileField = (request: UserRequest, params: FieldParams & { field_id: number }) =>
  request.realm.ask('fields.update', request.user.userId, {
    id: params.field_id,
    name: params.name,
    hint: params.hint,
    fieldData: params.field_data,
    displayInProfileSummary: params.display_in_profile_summary,
    required: params.required,
    editableByUser: params.editable_by_user,
  });

export const reorderProfileFields = (request: UserRequest, params: { order: number[] }) =>
  request.realm.ask('fields.reorder', request.user.userId, { order: params.order });

export const updateOwnProfileData = (request: UserRequest, params: { data: { id: number; value: unknown }[] }) =>
  request.realm.ask('profile.update', request.user.userId, { data: params.data });
