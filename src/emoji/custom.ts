// A realm's custom emoji (Zulip's RealmEmoji): uploaded images with a name, deactivated rather than
// deleted, so that old reactions and statuses keep their picture.
import { randomBytes } from 'node:crypto';
import { USER_AVATARS_PREFIX } from '../users/avatars.js';

export interface RealmEmojiRecord {
  id: number;
  realmId: number;
  name: string;
  /** The image's storage key, `<realm>/emoji/images/<file>`; also the URL's path under USER_AVATARS_PREFIX. */
  imageKey: string;
  authorId: number;
  deactivated: boolean;
}

/** Zulip's MAX_EMOJI_FILE_SIZE_MIB. */
export const MAX_EMOJI_FILE_SIZE_MIB = 5;

export const newEmojiImageKey = (realmId: number, extension: string): string => `${realmId}/emoji/images/${randomBytes(12).toString('hex')}.${extension}`;

/** Zulip's check_valid_emoji_name: lowercase letters, digits, dashes and underscores, not ending
 * in a dash or underscore; the message for a name refused, or undefined. */
export function emojiNameProblem(name: string): string | undefined {
  if (name === '') return 'Emoji name is missing';
  if (name.length > 60) return 'Emoji name is too long (limit: 60 characters)';
  if (!/^[0-9a-z_-]*[0-9a-z]$/.test(name)) return 'Invalid characters in emoji name';
  return undefined;
}

/** The emoji as register's realm_emoji and GET /realm/emoji show it. */
export const realmEmojiView = (record: RealmEmojiRecord) => ({
  id: String(record.id),
  name: record.name,
  source_url: `${USER_AVATARS_PREFIX}${record.imageKey}`,
  deactivated: record.deactivated,
  author_id: record.authorId,
});
