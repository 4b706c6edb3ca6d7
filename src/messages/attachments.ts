// Uploaded files as the organization knows them (Zulip's Attachment): who uploaded what, under
// which path ID, and the messages that link to it, which decide who else may download it.
import { randomBytes, randomInt } from 'node:crypto';

export interface AttachmentRecord {
  id: number;
  realmId: number;
  ownerId: number;
  /** The file's name as uploaded. */
  name: string;
  /** `<realm>/<bucket>/<random>/<sanitized name>`: the storage key and the URL's path. */
  pathId: string;
  size: number;
  contentType: string;
  /** UNIX seconds. */
  createTime: number;
  /** The messages whose content links to the file, oldest first. */
  messages: { id: number; dateSent: number }[];
}

export const UPLOADS_PREFIX = '/user_uploads/';

/** Zulip's sanitize_name: word characters, spaces, dots and dashes; runs of spaces and dashes
 * become one dash. */
export function sanitizeName(name: string): string {
  const cleaned = name
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}\p{M}_\s.-]/gu, '')
    .trim()
    .replace(/[-\s]+/g, '-');
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'uploaded-file' : cleaned;
}

/** A new path ID as Zulip makes them: a random bucket, 18 random bytes, the sanitized name. */
export const newPathId = (realmId: number, name: string): string =>
  `${realmId}/${randomInt(256).toString(16)}/${randomBytes(18).toString('base64url')}/${sanitizeName(name)}`;

/** The path IDs rendered message HTML links to (Zulip's potential_attachment_path_ids). */
export function linkedPathIds(html: string): string[] {
  const ids = new Set<string>();
  for (const match of html.matchAll(/href="\/user_uploads\/([^"?#]+)"/g)) {
    try {
      ids.add(decodeURI(match[1]!));
    } catch {
      // Not a path the server made (bad percent-encoding): nothing to claim.
    }
  }
  return [...ids];
}

/** The Attachment object of GET /attachments and `attachment` events (times in milliseconds). */
export const attachmentView = (record: AttachmentRecord) => ({
  id: record.id,
  name: record.name,
  path_id: record.pathId,
  size: record.size,
  create_time: record.createTime * 1000,
  messages: record.messages.map((message) => ({ id: message.id, date_sent: message.dateSent * 1000 })),
});

/** Types a browser may show in place (Zulip's INLINE_MIME_TYPES); others are served as downloads. */
const inlineTypes = new Set([
  'application/pdf',
  'audio/aac', 'audio/flac', 'audio/mp4', 'audio/mpeg', 'audio/ogg', 'audio/wav', 'audio/webm',
  'image/apng', 'image/avif', 'image/gif', 'image/jpeg', 'image/png', 'image/webp',
  'text/plain',
  'video/mp4', 'video/ogg', 'video/quicktime', 'video/webm',
]);

export const servedInline = (contentType: string): boolean => inlineTypes.has(contentType.split(';')[0]!.trim().toLowerCase());
