// Data exports made over the API (Zulip's RealmExport): a row per request, pending until the
// realm's exporter has written its tarball to the file storage, then done (with its key and size)
// or failed; a deleted one keeps its row with the time its file went. The view is Zulip's.

/** Zulip's export types offered over the API: public data only, or with the private data of the
 * users who allowed it (`allow_private_data_export`). */
export const ExportType = { public: 1, standard: 2 } as const;
export type ExportType = (typeof ExportType)[keyof typeof ExportType];

/** How many exports an organization may request in EXPORT_WINDOW_DAYS (Zulip's limit). */
export const EXPORT_LIMIT = 5;
export const EXPORT_WINDOW_DAYS = 7;
/** Larger organizations are exported by their server's administrator (Zulip's limit). */
export const MAX_EXPORTED_MESSAGES = 250_000;
/** How long a finished export's file is kept (Zulip's retention of exports). */
export const EXPORT_RETENTION_DAYS = 7;

export interface RealmExportRecord {
  id: number;
  realmId: number;
  actingUserId: number;
  exportType: ExportType;
  /** When it was requested (UNIX seconds, fractional as Zulip's). */
  requestedAt: number;
  /** Set once its file is stored: the file's key in the file storage and its size in bytes. */
  file?: { key: string; size: number };
  failedAt?: number;
  deletedAt?: number;
}

export const isPendingExport = (record: RealmExportRecord): boolean => record.file === undefined && record.failedAt === undefined;

/** Where an export's tarball is served: under /user_avatars/exports, as Zulip's local storage. */
export const exportPath = (key: string): string => `/user_avatars/exports/${key.split('/').filter((_, index) => index !== 1).join('/')}`;

/** An export as Zulip's API shows it (GET /export/realm, `realm_export` events). */
export function exportView(record: RealmExportRecord, realmUrl: string) {
  return {
    id: record.id,
    acting_user_id: record.actingUserId,
    export_time: record.requestedAt,
    export_type: record.exportType,
    export_url: record.file && record.deletedAt === undefined ? `${realmUrl}${exportPath(record.file.key)}` : null,
    deleted_timestamp: record.deletedAt ?? null,
    failed_timestamp: record.failedAt ?? null,
    pending: isPendingExport(record),
  };
}
