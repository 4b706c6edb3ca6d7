// How many event queues each user holds, in shared memory, so that the most a user may hold
// (MAX_QUEUES_PER_USER) is the server's limit and not each thread's: every thread that serves
// clients (PARLEY_THREADS above 2) counts its queues here. Indexed by user ID (IDs are the
// server's, handed out in order), in a buffer that grows as IDs do: pages never written take no
// memory.

/** Count cells: an ID past them shares the cell of its remainder (2^30: beyond any server's IDs). */
const CELLS = 2 ** 30;
const FIRST_CELLS = 1024;

/** The plain data a worker's `workerData` carries: instances over one act as one. */
export const newQueueCountsShare = (): SharedArrayBuffer => new SharedArrayBuffer(FIRST_CELLS * Int32Array.BYTES_PER_ELEMENT, { maxByteLength: CELLS * Int32Array.BYTES_PER_ELEMENT });

export class QueueCounts {
  /** Tracks the buffer's length as it grows, on whichever thread. */
  private readonly cells: Int32Array;

  constructor(readonly share: SharedArrayBuffer = newQueueCountsShare()) {
    this.cells = new Int32Array(share);
  }

  /** The queues a user holds. */
  held(userId: number): number {
    const cell = userId % CELLS;
    return cell < this.cells.length ? Atomics.load(this.cells, cell) : 0;
  }

  /** Counts one more queue of the user's, unless they hold `most` already. */
  take(userId: number, most: number): boolean {
    const cell = this.cell(userId);
    // Another thread may count between the read and the write: then it is read again.
    for (let held = Atomics.load(this.cells, cell); ; ) {
      if (held >= most) return false;
      const found = Atomics.compareExchange(this.cells, cell, held, held + 1);
      if (found === held) return true;
      held = found;
    }
  }

  /** Counts one more queue of the user's, whatever they hold (a queue kept across a restart). */
  add(userId: number): void {
    Atomics.add(this.cells, this.cell(userId), 1);
  }

  release(userId: number): void {
    Atomics.sub(this.cells, this.cell(userId), 1);
  }

  /** The user's cell, the buffer grown to hold it (by doubling; another thread may have grown it
   * further meanwhile, which a smaller size cannot undo). */
  private cell(userId: number): number {
    const cell = userId % CELLS;
    while (cell >= this.cells.length) {
      const bytes = Math.min(CELLS, Math.max(2 * this.cells.length, cell + 1)) * Int32Array.BYTES_PER_ELEMENT;
      if (bytes > this.share.byteLength) this.share.grow(bytes);
    }
    return cell;
  }
}
