// Data export endpoints (Zulip's zerver/views/realm_export.py) and the tarball's download.
import type * as schemas from '../../schemas/index.js';
import { errors } from '../errors.js';
import { FileStream, type UserRequest } from '../http/route.js';
import type { Params } from '../http/validation.js';
import { exportPath, type ExportType } from '../organization/exports.js';

export const exportRealm = (request: UserRequest, params: Params<typeof schemas.exportRealm>) =>
  request.realm.ask('realmExport.create', request.user.userId, { exportType: (params.export_type ?? 1) as ExportType });

export const getRealmExports = (request: UserRequest) => request.realm.ask('realmExport.list', request.user.userId, {});

export const getRealmExportConsents = (request: UserRequest) => request.realm.ask('realmExport.consents', request.user.userId, {});

export async function deleteRealmExport(request: UserRequest, params: Params<typeof schemas.deleteRealmExport>) {
  const { key } = await request.realm.ask('realmExport.delete', request.user.userId, { id: params.export_id });
  await request.files.delete(key);
  return {};
}

export async function getRealmExportFile(request: UserRequest, params: Params<typeof schemas.getRealmExportFile>) {
  const key = `${params.realm_id}/exports/${params.random}/${params.file_name}`;
  // Only an export the realm still lists (its administrators'): once deleted or expired, its file
  // is gone to readers at once, even while the storage is still removing it.
  const listed = params.realm_id === request.realm.realm.id && (await request.realm.ask('realmExport.list', request.user.userId, {})).exports.some((view) => view.export_url?.endsWith(exportPath(key)));
  const stored = listed ? await request.files.open(key) : undefined;
  if (!stored) throw errors.fileNotFound();
  return new FileStream(stored.stream, stored.size, {
    'Content-Type': stored.contentType,
    'Content-Disposition': `attachment; filename="${params.file_name}"`,
    'Cache-Control': 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
  });
}
