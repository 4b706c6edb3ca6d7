// Channel folder endpoints.
import type { UserRequest } from '../http/route.js';

export async function getFolders(request: UserRequest, params: { include_archived: boolean }) {
  return { channel_folders: await request.realm.ask('folders.list', request.user.userId, { includeArchived: params.include_archived }) };
}

export const createFolder = (request: UserRequest, params: { name: string; description: string }) =>
  request.realm.ask('folders.create', request.user.userId, { name: params.name, description: params.description });

export const updateFolder = (request: UserRequest, params: { channel_folder_id: number; name?: string; description?: string; is_archived?: boolean }) =>
  request.realm.ask('folders.update', request.user.userId, {
    id: params.channel_folder_id,
    name: params.name,
    description: params.description,
    isArchived: params.is_archived,
  });

export const reorderFolders = (request: UserRequest, params: { order: number[] }) =>
  request.realm.ask('folders.reorder', request.user.userId, { order: params.order });
