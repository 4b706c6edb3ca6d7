// Users' avatars as Zulip shows them: a Gravatar (an identicon unless the address has a picture
// there), or an image the user uploaded, kept in the file storage and served publicly under
// /user_avatars/ (as custom emoji are). A new picture bumps the avatar's version, so caches of the
// old URL are bypassed.
import { createHash, randomBytes } from 'node:crypto';
import type { UserRecord } from './records.js';

/** Where uploaded avatars and custom emoji images are served, as in Zulip. */
export const USER_AVATARS_PREFIX = '/user_avatars/';

/** Zulip's MAX_AVATAR_FILE_SIZE_MIB (register's max_avatar_file_size_mib). */
export const MAX_AVATAR_FILE_SIZE_MIB = 5;

/** The storage key of a user's newly uploaded avatar: `<realm>/avatars/<user>-<random>.<ext>`. */
export const newAvatarKey = (realmId: number, userId: number, extension: string): string => `${realmId}/avatars/${userId}-${randomBytes(12).toString('hex')}.${extension}`;

/** Gravatar's hashes of addresses, remembered (every register computes every user's avatar);
 * forgotten all at once past a bound. */
const gravatarHashes = new Map<string, string>();
const GRAVATAR_HASHES_KEPT = 100_000;

function gravatarHash(email: string): string {
  let hash = gravatarHashes.get(email);
  if (hash === undefined) {
    if (gravatarHashes.size >= GRAVATAR_HASHES_KEPT) gravatarHashes.clear();
    hash = createHash('md5').update(email.toLowerCase()).digest('hex');
    gravatarHashes.set(email, hash);
  }
  return hash;
}

function gravatarUrl(email: string, version: number, size?: number): string {
  const hash = gravatarHash(email);
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${version}${size === undefined ? '' : `&s=${size}`}`;
}

/** A user's avatar URL; `medium` is Zulip's larger size (500 px) for profile views (an uploaded
 * picture is served as it was uploaded, for both sizes). */
export function userAvatarUrl(user: UserRecord, medium = false): string {
  if (user.avatarSource === 'U' && user.avatarKey !== undefined) return `${USER_AVATARS_PREFIX}${user.avatarKey}?version=${user.avatarVersion}`;
  return gravatarUrl(user.email, user.avatarVersion, medium ? 500 : undefined);
}

/** What a realm_user update says of a changed avatar (every viewer gets the URL). */
export const avatarFields = (user: UserRecord) => ({
  avatar_source: user.avatarSource,
  avatar_url: userAvatarUrl(user),
  avatar_url_medium: userAvatarUrl(user, true),
  avatar_version: user.avatarVersion,
});
