// One exporter per realm: writes the data exports administrators requested, after the request's
// commit and outside the actor's mailbox, as the notifier sends the outboxes. A pass reads what is
// due (a read command), copies the realm's rows as one moment sees them into a scratch store (in
// frames, so the realm goes on answering), writes Zulip's tarball from it (realm/zulipExport.ts),
// stores the tarball in the file storage, and records the outcome (a write command). Finished
// exports past their retention lose their file the same way. A server stopped mid-export leaves it
// pending; the realm is activated at start and the export is written then.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Transaction } from 'lmdb';
import type { Config } from '../config.js';
import type { FileStorage } from '../files/storage.js';
import { realmRows, type Row } from '../store/realmData.js';
import { Store } from '../store/store.js';
import type { DueExports, ExportOutcome } from './commands/realmExport.js';
import { writeZulipExport } from './zulipExport.js';

/** Rows copied into the scratch store per write (the event loop turns between two). */
const ROWS_PER_FRAME = 2_000;
/** How long a pass that could not even read or record waits before the next. */
const RETRY_AFTER_BREAKAGE_MS = 60_000;
/** Far times are reached in steps (setTimeout's limit is ~24.8 days). */
const MAX_DELAY_MS = 24 * 3600 * 1000;

/** The realm as a pass uses it. */
export interface ExporterRealm {
  due(): Promise<DueExports>;
  settle(outcomes: ExportOutcome[], expired: number[]): Promise<{ removed: string[] }>;
  /** A read transaction of the store between two of the realm's commands (the caller ends it). */
  readPoint(): Promise<Transaction>;
}

class Stopped extends Error {}

export class Exporter {
  private running = false;
  private again = false;
  private stopped = false;
  private cancel: (() => void) | undefined;
  /** The copy of the realm's rows under way, if any: the only part that reads the live store. */
  private copying: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: Pick<Config, 'clock' | 'log' | 'externalHost'>,
    private readonly store: Store,
    private readonly files: FileStorage,
    private readonly realmId: number,
    private readonly realm: ExporterRealm,
  ) {}

  /** Looks for work now; a pass under way looks again once it is over (it may have read before
   * the request's row was written). */
  kick(): void {
    this.again = !this.stopped;
    if (this.again && !this.running) void this.run();
  }

  /** Stops: an export under way is abandoned (at its next frame, or before it is recorded) and
   * stays pending for the next start. Resolves once nothing reads the store any more; the rest of
   * the pass (the tarball, the file storage) is not waited for. */
  stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    return this.copying;
  }

  private async run(): Promise<void> {
    this.running = true;
    this.cancel?.();
    let next: number | null = null;
    try {
      while (this.again && !this.stopped) {
        this.again = false;
        next = await this.pass();
      }
    } catch (error) {
      if (!(error instanceof Stopped)) this.config.log.error({ err: error, realm: this.realmId }, 'data exports not written');
      next = this.config.clock.now() + RETRY_AFTER_BREAKAGE_MS;
    } finally {
      this.running = false;
    }
    if (next === null || this.stopped) return;
    const delay = Math.min(Math.max(next - this.config.clock.now(), 0), MAX_DELAY_MS);
    this.cancel = this.config.clock.after(delay, () => this.kick());
  }

  private async pass(): Promise<number | null> {
    const due = await this.realm.due();
    const outcomes: ExportOutcome[] = [];
    for (const { id, consenting } of due.pending) {
      if (this.stopped) throw new Stopped();
      try {
        outcomes.push({ id, file: await this.write(new Set(consenting)) });
      } catch (error) {
        // What a stop broke off is no failure: the export stays pending for the next start.
        if (error instanceof Stopped || this.stopped) throw new Stopped();
        this.config.log.error({ err: error, realm: this.realmId, export: id }, 'data export failed');
        outcomes.push({ id, failed: true });
      }
    }
    if (this.stopped) throw new Stopped();
    if (outcomes.length === 0 && due.expired.length === 0) return due.next;
    const { removed } = await this.realm.settle(outcomes, due.expired);
    await Promise.all(removed.map((key) => this.files.delete(key)));
    // What was just written starts its retention: the next read says when it ends.
    return outcomes.some((outcome) => 'file' in outcome) ? this.config.clock.now() : due.next;
  }

  /** Writes one export and stores its tarball; resolves with its key and size. */
  private async write(consenting: ReadonlySet<number>): Promise<{ key: string; size: number }> {
    const scratch = await mkdtemp(join(tmpdir(), 'parley-export-'));
    try {
      const copy = new Store(join(scratch, 'snapshot.mdb'));
      try {
        const copied = this.copyRealm(copy);
        this.copying = copied.catch(() => undefined);
        await copied;
        const realm = copy.realms.get(this.realmId);
        if (!realm) throw new Error(`realm ${this.realmId} is not in its snapshot`);
        const name = `zulip-export-${randomBytes(6).toString('hex')}`;
        const { tarball } = await writeZulipExport(copy, realm, join(scratch, name), this.config.externalHost, { kind: 'consented', userIds: consenting });
        const key = `${this.realmId}/exports/${randomBytes(18).toString('base64url')}/${name}.tar.gz`;
        const size = await this.files.put(key, createReadStream(tarball), 'application/gzip');
        return { key, size };
      } finally {
        await copy.close();
      }
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /** Copies the realm's rows as one moment sees them, a frame at a time. */
  private async copyRealm(copy: Store): Promise<void> {
    if (this.stopped) throw new Stopped();
    const transaction = await this.realm.readPoint();
    try {
      let frame: Row[] = [];
      for (const row of realmRows(this.store, this.realmId, { transaction, form: 'stored' })) {
        frame.push(row);
        if (frame.length < ROWS_PER_FRAME) continue;
        await copy.applyChanges(frame, { form: 'stored' });
        frame = [];
        if (this.stopped) throw new Stopped();
      }
      await copy.applyChanges(frame, { form: 'stored' });
    } finally {
      transaction.done();
    }
  }
}
