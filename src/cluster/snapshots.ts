// Realm snapshots in the JetStream object store: every row of a realm as of one log sequence,
// written from a read transaction opened at a quiet point of the realm's actor (writes go on while
// it streams out), after which the realm's log is trimmed. A node taking the realm over with no
// usable copy of its own restores the newest snapshot and replays the log from there. Rows travel
// in their stored form (the bytes their tables hold: read and put back without being decoded);
// a snapshot written before holds them in the change encoding.
import { Readable } from 'node:stream';
import type { ReadableStream as WebStream } from 'node:stream/web';
import type { Transaction } from 'lmdb';
import { Packr, UnpackrStream } from 'msgpackr';
import { realmRows, type Row } from '../store/realmData.js';
import type { Store } from '../store/store.js';
import { LOG_STREAM, subjects, type Cluster } from './connection.js';
import type { LogGrowth } from './log.js';

/** Rows a frame of the snapshot holds, and a restore writes at once. */
const ROWS_PER_FRAME = 1000;
const codec = new Packr({ useRecords: false });
const nameOf = (realmId: number): string => `realm-${realmId}`;
/** The snapshot's metadata `form` of rows in their stored form (absent: the change encoding). */
const STORED_FORM = 'stored';

/** When a realm's owner snapshots it next: after `every` log messages at least, once the log has
 * grown by `growthPercent` of the last snapshot's size (0 when it has none). A snapshot writes every
 * row of the realm, so snapshots after a fixed count of messages would cost more per message the
 * larger the realm grew; in proportion to the snapshot (at 100 %) writing them costs about twice
 * the log's bytes whatever the realm's size, and a restore replays at most a snapshot's worth. */
export function snapshotDue(growth: LogGrowth, lastSnapshotBytes: number, every: number, growthPercent: number): boolean {
  return growth.messages >= every && growth.bytes * 100 >= lastSnapshotBytes * growthPercent;
}

/** A realm's newest snapshot: the log sequence it holds the realm at, and its size in bytes. */
export interface SnapshotInfo {
  seq: number;
  bytes: number;
}

async function* frames(rows: Iterable<Row>): AsyncGenerator<Uint8Array> {
  let frame: Row[] = [];
  for (const row of rows) {
    frame.push(row);
    if (frame.length === ROWS_PER_FRAME) {
      yield codec.pack(frame);
      frame = [];
    }
  }
  if (frame.length > 0) yield codec.pack(frame);
}

export class Snapshots {
  constructor(
    private readonly cluster: Cluster,
    private readonly store: Store,
  ) {}

  /** Writes the realm's rows as `transaction` sees them, which is the realm at log sequence `seq`,
   * then trims the log before `seq` (the message at `seq` stays: appends are fenced on it);
   * resolves with the snapshot's size in bytes. */
  async take(realmId: number, seq: number, transaction: Transaction): Promise<number> {
    const body = Readable.toWeb(Readable.from(frames(realmRows(this.store, realmId, { transaction, form: 'stored' })))) as ReadableStream<Uint8Array>;
    const { size } = await this.cluster.snapshots.put({ name: nameOf(realmId), metadata: { seq: String(seq), form: STORED_FORM } }, body);
    await this.cluster.jsm.streams.purge(LOG_STREAM, { filter: subjects.log(realmId), seq });
    return size;
  }

  /** The realm's newest snapshot, if it has one. */
  async latest(realmId: number): Promise<SnapshotInfo | undefined> {
    const info = await this.cluster.snapshots.info(nameOf(realmId));
    return info && !info.deleted && info.metadata?.seq !== undefined ? { seq: Number(info.metadata.seq), bytes: info.size } : undefined;
  }

  /** Puts the newest snapshot's rows into the store (whose copy of the realm was dropped first);
   * resolves with its log sequence. */
  async restore(realmId: number): Promise<number> {
    const result = await this.cluster.snapshots.get(nameOf(realmId));
    if (!result?.info.metadata?.seq) throw new Error(`realm ${realmId} has no snapshot`);
    const decoded = Readable.fromWeb(result.data as WebStream<Uint8Array>).pipe(new UnpackrStream({ useRecords: false }));
    const stored = result.info.metadata.form === STORED_FORM;
    for await (const frame of decoded as AsyncIterable<Row[]>) await this.store.applyChanges(frame, { form: stored ? 'stored' : 'change' });
    if (await result.error) throw new Error(`realm ${realmId}'s snapshot is damaged`);
    return Number(result.info.metadata.seq);
  }
}
