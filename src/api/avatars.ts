// Avatars (POST/DELETE /users/me/avatar) and the public images under /user_avatars/: uploaded
// avatars and custom emoji, served without credentials as Zulip serves them.
import type * as schemas from '../../schemas/index.js';
import { errors } from '../errors.js';
import { FileStream, type PublicRequest, type UploadRequest, type UserRequest } from '../http/route.js';
import type { Params } from '../http/validation.js';
import { MAX_AVATAR_FILE_SIZE_MIB, newAvatarKey } from '../users/avatars.js';

/** Removes the picture an avatar change replaced (best effort: the change itself is durable). */
async function forget(request: UserRequest, replaced: string | undefined): Promise<void> {
  if (replaced === undefined) return;
  await request.files.delete(replaced).catch((error: unknown) => request.config.log.error({ err: error, key: replaced }, 'removing the replaced avatar failed'));
}

export async function uploadAvatar(request: UploadRequest) {
  const { realmId, userId } = { realmId: request.realm.realm.id, userId: request.user.userId };
  const { recorded } = await request.receiveFile({ maxMib: MAX_AVATAR_FILE_SIZE_MIB, imageKeyFor: (extension) => newAvatarKey(realmId, userId, extension) }, (file) =>
    request.realm.ask('avatars.set', userId, { imageKey: file.key }),
  );
  await forget(request, recorded.replaced);
  return { avatar_url: recorded.avatarUrl };
}

export async function deleteAvatar(request: UserRequest) {
  const { avatarUrl, replaced } = await request.realm.ask('avatars.remove', request.user.userId, {});
  await forget(request, replaced);
  return { avatar_url: avatarUrl };
}

/** Serves the images of one folder of a realm under /user_avatars/<realm>/<folder>/<file>. */
export const publicImage = (folder: 'emoji/images' | 'avatars') =>
  async function getPublicImage(request: PublicRequest, params: Params<typeof schemas.getPublicImage>) {
    const stored = params.realm_id === request.realm.realm.id ? await request.files.open(`${params.realm_id}/${folder}/${params.file_name}`) : undefined;
    if (!stored) throw errors.fileNotFound();
    return new FileStream(stored.stream, stored.size, { 'Content-Type': stored.contentType, 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' });
  };
