// Data exports over the API (Zulip's zerver/views/realm_export.py and actions/realm_export.py):
// administrators request one (a standard export, with the private data of those who consented,
// only owners), which is recorded pending in the request's commit; the realm's exporter
// (realm/exporter.ts) writes it after the commit and records its outcome here. Every change is
// announced to the organization's administrators as the list of exports (`realm_export`).
import { errors } from '../../errors.js';
import { EXPORT_LIMIT, EXPORT_RETENTION_DAYS, EXPORT_WINDOW_DAYS, ExportType, exportView, isPendingExport, MAX_EXPORTED_MESSAGES, type RealmExportRecord } from '../../organization/exports.js';
import { realmUrl } from '../../organization/records.js';
import { userSetting } from '../../users/settings.js';
import { isAdmin, Role, type UserRecord } from '../../users/records.js';
import { activeAdminIds } from './admin.js';
import { readCommand, writeCommand, type CommandContext, type ReadContext } from '../context.js';

const DAY_SECONDS = 24 * 3600;

const exportsOf = (ctx: ReadContext): RealmExportRecord[] => [...ctx.store.realmExports.ofRealm(ctx.state.realm.id)];
const views = (ctx: ReadContext) => exportsOf(ctx).map((record) => exportView(record, realmUrl(ctx.state.realm, ctx.config)));
const humans = (ctx: ReadContext): UserRecord[] => [...ctx.state.users.values()].filter((user) => user.isActive && !user.isBot);

function requireAdministrator(ctx: ReadContext): UserRecord {
  const user = ctx.user;
  if (!isAdmin(user)) throw errors.adminRequired();
  return user;
}

function announce(ctx: CommandContext): void {
  ctx.emit({ type: 'realm_export', exports: views(ctx) }, activeAdminIds(ctx));
}

/** Zulip's size limit, counted only as far as it matters. */
function tooManyMessages(ctx: ReadContext): boolean {
  let count = 0;
  for (const user of ctx.state.users.values()) {
    for (const _ of ctx.store.sentBy(user.id)) if (++count > MAX_EXPORTED_MESSAGES) return true;
  }
  return false;
}

function findExport(ctx: ReadContext, id: number): RealmExportRecord {
  const record = ctx.store.realmExports.get(ctx.state.realm.id, id);
  if (!record) throw errors.badRequest('Invalid data export ID');
  return record;
}

/** What one pass of the realm's exporter is to do. */
export interface DueExports {
  pending: { id: number; consenting: number[] }[];
  expired: number[];
  /** When the next finished export expires (milliseconds on the clock), if one is kept. */
  next: number | null;
}

/** What became of an export the exporter took up. */
export type ExportOutcome = { id: number } & ({ file: { key: string; size: number } } | { failed: true });

export const realmExportCommands = {
  'realmExport.create': writeCommand((ctx, input: { exportType: ExportType }) => {
    const user = requireAdministrator(ctx);
    if (input.exportType === ExportType.standard && user.role !== Role.owner) throw errors.ownerRequired();
    const recent = exportsOf(ctx).filter((record) => record.requestedAt >= ctx.now - EXPORT_WINDOW_DAYS * DAY_SECONDS);
    if (recent.length >= EXPORT_LIMIT) throw errors.badRequest('Exceeded rate limit.');
    if (tooManyMessages(ctx)) throw errors.badRequest(`Please request a manual export from ${ctx.config.mail?.from ?? "the server's administrator"}.`);
    const record: RealmExportRecord = { id: ctx.store.nextId('realmExport'), realmId: ctx.state.realm.id, actingUserId: user.id, exportType: input.exportType, requestedAt: ctx.config.clock.now() / 1000 };
    ctx.save('realmExport', record);
    ctx.exportRequested = true;
    announce(ctx);
    return { id: record.id };
  }),

  'realmExport.list': readCommand((ctx, _input: Record<string, never>) => {
    requireAdministrator(ctx);
    return { exports: views(ctx) };
  }),

  /** Marks an export's file deleted; the caller removes the file (as attachments.delete). */
  'realmExport.delete': writeCommand((ctx, input: { id: number }) => {
    requireAdministrator(ctx);
    const record = findExport(ctx, input.id);
    if (record.deletedAt !== undefined) throw errors.badRequest('Export already deleted');
    if (record.failedAt !== undefined) throw errors.badRequest('Export failed, nothing to delete');
    if (!record.file) throw errors.badRequest('Export still in progress');
    ctx.save('realmExport', { ...record, deletedAt: ctx.config.clock.now() / 1000 });
    announce(ctx);
    return { key: record.file.key };
  }),

  'realmExport.consents': readCommand((ctx, _input: Record<string, never>) => {
    requireAdministrator(ctx);
    return { export_consents: humans(ctx).map((user) => ({ user_id: user.id, consented: userSetting(user, 'allow_private_data_export') === true })) };
  }),

  /** The exporter's read: the exports still to write, with whose private data each may carry, and
   * the finished files past their retention. */
  'realmExport.due': readCommand((ctx, _input: Record<string, never>): DueExports => {
    const records = exportsOf(ctx);
    const consenting = humans(ctx).filter((user) => userSetting(user, 'allow_private_data_export') === true).map((user) => user.id);
    const expiredBefore = ctx.now - EXPORT_RETENTION_DAYS * DAY_SECONDS;
    const kept = records.filter((record) => record.file && record.deletedAt === undefined);
    const expiry = (record: RealmExportRecord) => (record.requestedAt + EXPORT_RETENTION_DAYS * DAY_SECONDS) * 1000;
    const later = kept.filter((record) => record.requestedAt >= expiredBefore).map(expiry);
    return {
      pending: records.filter(isPendingExport).map((record) => ({ id: record.id, consenting: record.exportType === ExportType.standard ? consenting : [] })),
      expired: kept.filter((record) => record.requestedAt < expiredBefore).map((record) => record.id),
      next: later.length > 0 ? Math.min(...later) : null,
    };
  }),

  /** Records what became of an export (its file stored, or failed), or that an expired one's file
   * is to go; answers the keys of the files to remove. */
  'realmExport.settle': writeCommand((ctx, input: { outcomes: ExportOutcome[]; expired: number[] }) => {
    const nowSeconds = ctx.config.clock.now() / 1000;
    const removed: string[] = [];
    for (const outcome of input.outcomes) {
      const record = ctx.store.realmExports.get(ctx.state.realm.id, outcome.id);
      if (!record || !isPendingExport(record)) continue;
      ctx.save('realmExport', 'file' in outcome ? { ...record, file: outcome.file } : { ...record, failedAt: nowSeconds });
    }
    for (const id of input.expired) {
      const record = ctx.store.realmExports.get(ctx.state.realm.id, id);
      if (!record?.file || record.deletedAt !== undefined) continue;
      ctx.save('realmExport', { ...record, deletedAt: nowSeconds });
      removed.push(record.file.key);
    }
    announce(ctx);
    return { removed };
  }),
};
