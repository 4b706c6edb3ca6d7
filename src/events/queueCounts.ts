// How many event queues each user holds, in shared memory, so that the most a user may hold
// (MAX_QUEUES_PER_USER) is the server's limit and not each thread's: every thread that serves
// clients (PARLEY_THREADS above 2) counts its queues here. Indexed by user ID (IDs are the
// server's, handed out in order), in one buffer of fixed size: pages never written take no memory.

/** Count cells: 64 MiB at most, mostly never touched. An ID past them shares the cell of its
 * remainder with another user's, whose queues then count against both (beyond 16 million users). */
const CELLS = 2 ** 24;

/** The plain data a worker's `workerData` carries: instances over one act as one. */
export const newQueueCountsShare = (): SharedArrayBuffer => new SharedArrayBuffer(CELLS * Int32Array.BYTES_PER_ELEMENT);

export class QueueCounts {
  private readonly cells: Int32Array;

  constructor(readonly share: SharedArrayBuffer = newQueueCountsShare()) {
    this.cells = new Int32Array(share);
  }

  /** The queues a user holds. */
  held(userId: number): number {
    return Atomics.load(this.cells, userId % CELLS);
  }

  /** Counts one more queue of the user's, unless they hold `most` already. */
  take(userId: number, most: number): boolean {
    const cell = userId % CELLS;
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
    Atomics.add(this.cells, userId % CELLS, 1);
  }

  release(userId: number): void {
    Atomics.sub(this.cells, userId % CELLS, 1);
  }
}
