// Custom emoji: the list, uploading one (its image streamed into the file storage) and deactivating
// one; their images are served with avatars (avatars.ts).
import type * as schemas from '../../schemas/index.js';
import { MAX_EMOJI_FILE_SIZE_MIB, newEmojiImageKey } from '../emoji/custom.js';
import type { UploadRequest, UserRequest } from '../http/route.js';
import type { Params } from '../http/validation.js';

export async function getRealmEmoji(request: UserRequest) {
  return { emoji: await request.realm.ask('realmEmoji.list', request.user.userId, {}) };
}

export async function uploadCustomEmoji(request: UploadRequest, params: Params<typeof schemas.uploadCustomEmoji>) {
  const userId = request.user.userId;
  // As every upload route: the body first, then the checks (a refused emoji's image is dropped).
  const realmId = request.realm.realm.id;
  await request.receiveFile({ maxMib: MAX_EMOJI_FILE_SIZE_MIB, imageKeyFor: (extension) => newEmojiImageKey(realmId, extension) }, (file) =>
    request.realm.ask('realmEmoji.add', userId, { name: params.emoji_name, imageKey: file.key }),
  );
  return {};
}

export const deactivateCustomEmoji = (request: UserRequest, params: Params<typeof schemas.deactivateCustomEmoji>) =>
  request.realm.ask('realmEmoji.deactivate', request.user.userId, { name: params.emoji_name });
