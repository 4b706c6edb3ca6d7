// Realm snapshots in the JetStream object store: every row of a realm as of one log sequence,
// written from a read transaction opened at a quiet point of the realm's actor (writes go on while
// it streams out), after which the realm's log is trimmed. A node taking the realm over with no
// usable copy of its own restores the newest snapshot and replays the log from there.
import { Readable } from 'node:stream';
import type { ReadableStream as WebStream } from 'node:stream/web';
import type { Transaction } from 'lmdb';
import { Packr, UnpackrStream } from 'msgpackr';
import { realmRows, type Row } from '../store/realmData.js';
import type { Store } from '../store/store.js';
import { LOG_STREAM, subjects, type Cluster } from './connection.js';

/** Rows a frame of the snapshot holds, and a restore writes at once. */
const ROWS_PER_FRAME = 1000;
const codec = new Packr({ useRecords: false });
const nameOf = (realmId: number): string => `realm-${realmId}`;

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
   * then trims the log before `seq` (the message at `seq` stays: appends are fenced on it). */
  async take(realmId: number, seq: number, transaction: Transaction): Promise<void> {
    const body = Readable.toWeb(Readable.from(frames(realmRows(this.store, realmId, transaction)))) as ReadableStream<Uint8Array>;
    await this.cluster.snapshots.put({ name: nameOf(realmId), metadata: { seq: String(seq) } }, body);
    await this.cluster.jsm.streams.purge(LOG_STREAM, { filter: subjects.log(realmId), seq });
  }

  /** The log sequence of the realm's newest snapshot, if it has one. */
  async latest(realmId: number): Promise<number | undefined> {
    const info = await this.cluster.snapshots.info(nameOf(realmId));
    return info && !info.deleted && info.metadata?.seq !== undefined ? Number(info.metadata.seq) : undefined;
  }

  /** Puts the newest snapshot's rows into the store (whose copy of the realm was dropped first);
   * resolves with its log sequence. */
  async restore(realmId: number): Promise<number> {
    const result = await this.cluster.snapshots.get(nameOf(realmId));
    if (!result?.info.metadata?.seq) throw new Error(`realm ${realmId} has no snapshot`);
    const decoded = Readable.fromWeb(result.data as WebStream<Uint8Array>).pipe(new UnpackrStream({ useRecords: false }));
    for await (const frame of decoded as AsyncIterable<Row[]>) await this.store.applyChanges(frame);
    if (await result.error) throw new Error(`realm ${realmId}'s snapshot is damaged`);
    return Number(result.info.metadata.seq);
  }
}
