// Uploads (POST /user_uploads), serving them (GET /user_uploads/…, authenticated), and the user's
// attachments (GET /attachments, DELETE /attachments/{id}). The bytes go through the file storage
// (src/files/); the realm actor keeps the records and decides who may read what.
import type * as schemas from '../../schemas/index.js';
import { newPathId, servedInline, UPLOADS_PREFIX } from '../messages/attachments.js';
import { FileStream, type PublicRequest, type UploadRequest, type UserRequest } from '../http/route.js';
import type { Params } from '../http/validation.js';
import { errors } from '../errors.js';

export async function uploadFile(request: UploadRequest) {
  const realmId = request.realm.realm.id;
  const { file } = await request.receiveFile({ maxMib: request.config.maxFileUploadSizeMib, keyFor: (name) => newPathId(realmId, name) }, (received) =>
    request.realm.ask('attachments.create', request.user.userId, { name: received.name, pathId: received.key, size: received.size, contentType: received.contentType }),
  );
  const url = `${UPLOADS_PREFIX}${file.key}`;
  return { uri: url, url, filename: file.name };
}

/** RFC 6266's Content-Disposition with the name in UTF-8. */
const disposition = (inline: boolean, name: string) => `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(name)}`;

export async function getFile(request: UserRequest, params: Params<typeof schemas.getFile>) {
  const pathId = `${params.realm_id}/${params.bucket}/${params.random}/${params.filename}`;
  return serveFile(request, pathId, await request.realm.ask('attachments.access', request.user.userId, { pathId }));
}

/** A temporary URL for a file (GET /api/v1/user_uploads/{realm_id_str}/{filename}): usable without
 * credentials for a minute. */
export async function getFileTemporaryUrl(request: UserRequest, params: Params<typeof schemas.getFileTemporaryUrl>) {
  const pathId = `${params.realm_id_str}/${params.bucket}/${params.random}/${params.filename}`;
  const { token } = await request.realm.ask('attachments.temporaryToken', request.user.userId, { pathId });
  return { url: `${UPLOADS_PREFIX}temporary/${token}/${encodeURIComponent(params.filename)}` };
}

/** Serving a temporary URL: no credentials, the token says whose access it is. */
export async function getTemporaryFile(request: PublicRequest, params: Params<typeof schemas.getTemporaryFile>) {
  const file = await request.realm.ask('attachments.redeemToken', null, { token: params.token });
  return serveFile(request, file.pathId, file);
}

async function serveFile(request: PublicRequest, pathId: string, { name, contentType }: { name: string; contentType: string }) {
  const stored = await request.files.open(pathId);
  if (!stored) throw errors.fileNotFound();
  return new FileStream(stored.stream, stored.size, {
    'Content-Type': contentType,
    'Content-Disposition': disposition(servedInline(contentType), name),
    'Cache-Control': 'private, immutable',
    'X-Content-Type-Options': 'nosniff',
  });
}

export const getAttachments = (request: UserRequest) => request.realm.ask('attachments.list', request.user.userId, {});

export async function removeAttachment(request: UserRequest, params: Params<typeof schemas.removeAttachment>) {
  const { pathId } = await request.realm.ask('attachments.delete', request.user.userId, { id: params.attachment_id });
  await request.files.delete(pathId);
  return {};
}
