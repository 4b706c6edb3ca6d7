// A front's requests to the realm thread go in batches: a post has a fixed cost on both sides (the
// copy's setup, waking the other thread), and under load a turn of the event loop makes many
// requests (a read of the sockets brings many). A batch goes as soon as it holds `cap` requests, and
// the rest at the end of the turn: the realm thread starts on the first of a burst while the front
// reads the rest, where a batch per turn kept each thread idle while the other worked through the
// whole burst. (The realm thread's own go once per turn, fronts.ts.) The order is kept. A message
// that cannot be copied (nested deeper than the copy's stack goes: the parameters of a request are
// bounded, http/json.ts, so a bug) is refused alone, to its sender, and the rest of its batch goes
// (`postBatch`, which the realm thread's posts to its fronts use too, fronts.ts).
export interface Poster {
  postMessage(value: unknown): void;
}

export class BatchedPort<T> {
  private pending: T[] = [];
  private scheduled = false;

  constructor(
    private readonly target: Poster,
    /** The most messages a batch holds before it goes, without waiting for the end of the turn. */
    private readonly cap: number,
    /** Told of a message that could not be copied, which did not go. */
    private readonly refused: (message: T, error: unknown) => void,
  ) {}

  post(message: T): void {
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
    this.pending.push(message);
    if (this.pending.length >= this.cap) this.flush();
  }

  /** Drops what waits (the other side is to forget it). */
  clear(): void {
    this.pending.length = 0;
  }

  /** Posts what waits now (before the port closes, say). */
  flush(): void {
    if (this.pending.length > 0) postBatch(this.target, this.pending.splice(0), this.refused);
  }
}

/** Posts a batch in one post; when a message of it cannot be copied (nothing of the batch went),
 * each on its own, in order, and those that still cannot be copied to `refused`. */
export function postBatch<T>(target: Poster, batch: T[], refused: (message: T, error: unknown) => void): void {
  try {
    target.postMessage(batch);
  } catch {
    for (const message of batch) {
      try {
        target.postMessage([message]);
      } catch (error) {
        refused(message, error);
      }
    }
  }
}
