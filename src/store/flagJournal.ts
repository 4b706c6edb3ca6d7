// Flag changes on rows a user already has, kept as a journal beside the conversation chunks
// (userMessages.ts) until they are folded into them. A flag update over a window of everything
// changes a few rows in each of dozens of conversations; rewriting each one's chunks dirtied a
// leaf page per conversation (65-92 pages and their fdatasync for 5,000 rows), where one journal
// record is a few contiguous pages:
//
//   userFlagOps [userId, sequence] → value: op (uint8: 1 sets the bits, 0 clears them), the bits
//                                    (uint16), then the message IDs ascending as LEB128 deltas;
//                                    or a summary (op 2, bits 0), only ever a journal's first
//                                    record: each message ID's delta, the bits set, the bits
//                                    cleared, all three LEB128
//
// A row's flags are its chunk's, with the user's records applied in sequence. Their sum is the
// user's overlay: for each message ID, the bits set and the bits cleared by the last record that
// named them (applying it twice changes nothing, so a chunk written from flags already overlaid
// reads the same). A record names only rows the user has. Any other change to a user's rows than
// a new row (rows removed or moved; flags set by an edit or on a row from a channel's history)
// folds the journal first: its flags are written into the chunks and its records removed. So does
// a journal grown past FOLD_ROWS rows, and any journal grown while the overlays in memory hold
// more than JOURNAL_ROWS rows together, in the write that grows it: what a record saves is paid
// once per fold, however many records set the same rows. A journal grown past FOLD_RECORDS
// records with fewer rows (marks that set and clear the same rows again, as a client marking a
// window read and unread does) is compacted instead: its records become one summary of its
// overlay, a write the size of the overlay rather than of the chunks its rows are in.
import type { Database } from 'lmdb';
import { lowerBoundIn, type RowTable } from './rowTables.js';
import { readVarints, writeVarint } from './varints.js';

/** The rows, and the records, past which a write folds its journal into the user's chunks. */
export const FOLD_ROWS = 16_384;
export const FOLD_RECORDS = 64;
/** The rows all users' overlays may hold in memory together (8 bytes each) before a write that
 * grows one folds it. */
export const JOURNAL_ROWS = 2_000_000;
const HEADER = 3;
const SUMMARY = 2;

type Key = [userId: number, sequence: number];

/** A user's journal summed: message IDs ascending, each with the bits its records set and clear. */
export class FlagOverlay {
  static readonly EMPTY = new FlagOverlay(new Uint32Array(0), new Uint16Array(0), new Uint16Array(0), 0, 0);

  private constructor(
    readonly ids: Uint32Array,
    private readonly set: Uint16Array,
    private readonly cleared: Uint16Array,
    /** The sequence of the first record, and how many there are. */
    readonly firstSequence: number,
    readonly records: number,
  ) {}

  get length(): number {
    return this.ids.length;
  }

  get nextSequence(): number {
    return this.firstSequence + this.records;
  }

  /** A row's flags as stored in its chunk, with the journal applied. */
  flagsOf(messageId: number, stored: number): number {
    if (this.ids.length === 0) return stored;
    const at = lowerBoundIn(this.ids, messageId, 0, this.ids.length);
    return at < this.ids.length && this.ids[at] === messageId ? this.flagsAt(at, stored) : stored;
  }

  /** Visits each of the overlay's rows that the table holds: its index here and its place there
   * (both ascend, so each is found from the one before's place). */
  forEachIn(table: RowTable, visit: (index: number, at: number) => void): void {
    for (let index = 0, at = 0; index < this.ids.length; index++) {
      at = table.seek(this.ids[index]!, at);
      if (at < table.length && table.ids[at] === this.ids[index]) visit(index, at);
    }
  }

  /** The overlay's `index`th row's flags, stored as `stored`. */
  flagsAt(index: number, stored: number): number {
    return (stored & ~this.cleared[index]!) | this.set[index]!;
  }

  /** The overlay as one summary record, at `sequence`. */
  summarized(sequence: number): FlagOverlay {
    return new FlagOverlay(this.ids, this.set, this.cleared, sequence, 1);
  }

  /** An overlay's summary record (its rows, each with the bits set and cleared). */
  encode(): Buffer {
    // An ID's delta takes at most five bytes (uint32), each uint16 of bits three.
    const bytes = Buffer.allocUnsafe(HEADER + this.ids.length * 11);
    bytes[0] = SUMMARY;
    bytes.writeUInt16LE(0, 1);
    let at = HEADER;
    let previous = 0;
    for (let index = 0; index < this.ids.length; index++) {
      at = writeVarint(bytes, at, this.ids[index]! - previous);
      previous = this.ids[index]!;
      at = writeVarint(bytes, at, this.set[index]!);
      at = writeVarint(bytes, at, this.cleared[index]!);
    }
    return bytes.subarray(0, at);
  }

  /** The overlay a summary record holds, as the record at `sequence`. */
  static decode(bytes: Buffer, sequence: number): FlagOverlay {
    const values = readVarints(bytes, HEADER);
    const rows = values.length / 3;
    const [ids, set, cleared] = [new Uint32Array(rows), new Uint16Array(rows), new Uint16Array(rows)];
    let previous = 0;
    for (let index = 0; index < rows; index++) {
      previous += values[index * 3]!;
      ids[index] = previous;
      set[index] = values[index * 3 + 1]!;
      cleared[index] = values[index * 3 + 2]!;
    }
    return new FlagOverlay(ids, set, cleared, sequence, 1);
  }

  /** This overlay with one more record: `bits` set (add) or cleared on the rows of `ids`
   * (ascending, without repeats), merged in one pass. */
  with(ids: readonly number[], add: boolean, bits: number, sequence: number): FlagOverlay {
    const capacity = this.ids.length + ids.length;
    const [mergedIds, mergedSet, mergedCleared] = [new Uint32Array(capacity), new Uint16Array(capacity), new Uint16Array(capacity)];
    const { ids: known, set, cleared } = this;
    // The new record's bits, on a row without earlier ones.
    const newSet = add ? bits : 0;
    const newCleared = add ? 0 : bits;
    let length = 0;
    let mine = 0;
    for (let index = 0; index < ids.length; index++) {
      const id = ids[index]!;
      // Earlier rows before this one are kept as they are (whole runs of them, copied).
      let run = mine;
      while (run < known.length && known[run]! < id) run++;
      if (run > mine) {
        mergedIds.set(known.subarray(mine, run), length);
        mergedSet.set(set.subarray(mine, run), length);
        mergedCleared.set(cleared.subarray(mine, run), length);
        length += run - mine;
        mine = run;
      }
      mergedIds[length] = id;
      if (mine < known.length && known[mine] === id) {
        mergedSet[length] = add ? set[mine]! | bits : set[mine]! & ~bits;
        mergedCleared[length] = add ? cleared[mine]! & ~bits : cleared[mine]! | bits;
        mine++;
      } else {
        mergedSet[length] = newSet;
        mergedCleared[length] = newCleared;
      }
      length++;
    }
    mergedIds.set(known.subarray(mine), length);
    mergedSet.set(set.subarray(mine), length);
    mergedCleared.set(cleared.subarray(mine), length);
    length += known.length - mine;
    const first = this.records === 0 ? sequence : this.firstSequence;
    return new FlagOverlay(mergedIds.subarray(0, length), mergedSet.subarray(0, length), mergedCleared.subarray(0, length), first, sequence + 1 - first);
  }
}

function encode(ids: readonly number[], add: boolean, bits: number): Buffer {
  // A delta takes at most five bytes (uint32).
  const bytes = Buffer.allocUnsafe(HEADER + ids.length * 5);
  bytes[0] = add ? 1 : 0;
  bytes.writeUInt16LE(bits, 1);
  let at = HEADER;
  let previous = 0;
  for (const id of ids) {
    at = writeVarint(bytes, at, id - previous);
    previous = id;
  }
  return bytes.subarray(0, at);
}

/** The overlay with the record at `sequence` applied. */
function applyRecord(overlay: FlagOverlay, bytes: Buffer, sequence: number): FlagOverlay {
  if (bytes[0] === SUMMARY) {
    if (overlay.records > 0) throw new Error(`flag journal: a summary at ${sequence} after other records`);
    return FlagOverlay.decode(bytes, sequence);
  }
  const ids = readVarints(bytes, HEADER);
  for (let index = 1; index < ids.length; index++) ids[index] = ids[index]! + ids[index - 1]!;
  return overlay.with(ids, bytes[0] === 1, bytes.readUInt16LE(1), sequence);
}

/** The journal's table and each user's overlay, read on first use and kept in step with every
 * write; a write rolled back puts back the overlays it changed. */
export class FlagJournal {
  private readonly overlays = new Map<number, FlagOverlay>();
  private held = 0;
  /** The overlays the write under way changed, as they were before it (undefined: not read yet). */
  private readonly before = new Map<number, FlagOverlay | undefined>();

  constructor(private readonly db: Database<Buffer, Key>) {}

  /** The user's overlay (FlagOverlay.EMPTY when the journal is empty). */
  overlay(userId: number): FlagOverlay {
    let overlay = this.overlays.get(userId);
    if (!overlay) {
      overlay = FlagOverlay.EMPTY;
      for (const { key, value } of this.db.getRange({ start: [userId, 0], end: [userId + 1] }) as Iterable<{ key: Key; value: Buffer }>) overlay = applyRecord(overlay, value, key[1]);
      this.hold(userId, overlay);
    }
    return overlay;
  }

  /** Writes a record: `bits` set (add) or cleared on the user's rows of `ids` (ascending, without
   * repeats). Returns the overlay with it. Call inside a write. */
  record(userId: number, ids: readonly number[], add: boolean, bits: number): FlagOverlay {
    const overlay = this.overlay(userId);
    const sequence = overlay.nextSequence;
    this.db.put([userId, sequence], encode(ids, add, bits));
    return this.replace(userId, overlay.with(ids, add, bits, sequence));
  }

  /** Removes the user's records, returning their overlay, for the caller to write into the chunks.
   * Call inside a write. */
  take(userId: number): FlagOverlay {
    const overlay = this.overlay(userId);
    if (overlay.records === 0) return overlay;
    this.removeRecords(userId, overlay);
    this.replace(userId, FlagOverlay.EMPTY);
    return overlay;
  }

  /** Replaces the user's records by one summary of their overlay. Call inside a write. */
  compact(userId: number): void {
    const overlay = this.overlay(userId);
    this.removeRecords(userId, overlay);
    const summary = overlay.summarized(overlay.nextSequence);
    this.db.put([userId, summary.firstSequence], summary.encode());
    this.replace(userId, summary);
  }

  private removeRecords(userId: number, overlay: FlagOverlay): void {
    for (let sequence = overlay.firstSequence; sequence < overlay.nextSequence; sequence++) this.db.remove([userId, sequence]);
  }

  private replace(userId: number, overlay: FlagOverlay): FlagOverlay {
    if (!this.before.has(userId)) this.before.set(userId, this.overlays.get(userId));
    this.hold(userId, overlay);
    return overlay;
  }

  /** The rows of every overlay in memory. */
  get heldRows(): number {
    return this.held;
  }

  /** Holds the user's overlay in memory (undefined: none, to be read when used). */
  private hold(userId: number, overlay: FlagOverlay | undefined): void {
    this.held += (overlay?.length ?? 0) - (this.overlays.get(userId)?.length ?? 0);
    if (overlay) this.overlays.set(userId, overlay);
    else this.overlays.delete(userId);
  }

  /** A write begins or succeeded: what changed before is settled. */
  settle(): void {
    this.before.clear();
  }

  /** The write under way was rolled back: the overlays it changed are as they were before it. */
  rollBackWrite(): void {
    for (const [userId, overlay] of this.before) this.hold(userId, overlay);
    this.before.clear();
  }

  /** Forgets every overlay (another writer changed the journal), to be read again when used. */
  forget(): void {
    this.overlays.clear();
    this.before.clear();
    this.held = 0;
  }
}
