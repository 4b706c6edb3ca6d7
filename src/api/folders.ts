// Channel folder endpoints.
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';

export async function getFolders(request: UserRequest, params: Params<typeof schemas.getChannelFolders>) {
  return { channel_folders: await request.realm.ask('folders.list', request.user.userId, { includeArchived: params.include_archived }) };
}

export const createFolder = (request: UserRequest, params: Params<typeof schemas.createChannelFolder>) =>
  request.realm.ask('folders.create', request.user.userId, { name: params.name, description: params.description });

export const updateFolder = (request: UserRequest, params: Params<typeof schemas.updateChannelFolder>) =>
  request.realm.ask('folders.update', request.user.userId, {
    id: params.channel_folder_id,
    name: params.name,
    description: params.description,
    isArchived: params.is_archived,
  });

export const reorderFolders = (request: UserRequest, params: Params<typeof schemas.patchChannelFolders>) =>
  request.realm.ask('folders.reorder', request.user.userId, { order: params.order });
