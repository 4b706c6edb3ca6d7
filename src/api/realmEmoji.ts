// Custom emoji: the list, uploading one (its image streamed into the file storage), deactivating
// one, and serving the images at the URLs the list names (public, as Zulip serves them).
import type * as schemas from '../../schemas/index.js';
import { emojiImageTypes, MAX_EMOJI_FILE_SIZE_MIB, newEmojiImageKey } from '../emoji/custom.js';
import { errors } from '../errors.js';
import { FileStream, type PublicRequest, type UploadRequest, type UserRequest } from '../http/route.js';
import type { Params } from '../http/validation.js';

export async function getRealmEmoji(request: UserRequest) {
  return { emoji: await request.realm.ask('realmEmoji.list', request.user.userId, {}) };
}

const extensionOf = (fileName: string): string => /\.(png|gif|jpe?g|webp)$/i.exec(fileName)?.[1]?.toLowerCase() ?? 'img';

export async function uploadCustomEmoji(request: UploadRequest, params: Params<typeof schemas.uploadCustomEmoji>) {
  const userId = request.user.userId;
  // As every upload route: the body first, then the checks (a refused emoji's image is dropped).
  const realmId = request.realm.realm.id;
  const file = await request.receiveFile({ maxMib: MAX_EMOJI_FILE_SIZE_MIB, keyFor: (name) => newEmojiImageKey(realmId, extensionOf(name)) });
  try {
    if (!(file.contentType in emojiImageTypes)) throw errors.badRequest('Invalid image format');
    await request.realm.ask('realmEmoji.add', userId, { name: params.emoji_name, imageKey: file.key });
  } catch (error) {
    await request.files.delete(file.key);
    throw error;
  }
  return {};
}

export const deactivateCustomEmoji = (request: UserRequest, params: Params<typeof schemas.deactivateCustomEmoji>) =>
  request.realm.ask('realmEmoji.deactivate', request.user.userId, { name: params.emoji_name });

export async function getEmojiImage(request: PublicRequest, params: Params<typeof schemas.getEmojiImage>) {
  const stored = params.realm_id === request.realm.realm.id ? await request.files.open(`${params.realm_id}/emoji/images/${params.file_name}`) : undefined;
  if (!stored) throw errors.fileNotFound();
  return new FileStream(stored.stream, stored.size, { 'Content-Type': stored.contentType, 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' });
}
