// Messages between the I/O thread and the realm thread go in batches: a post has a fixed cost on
// both sides (the copy's setup, waking the other thread), and under load a turn of the event loop
// makes many messages (a commit answers a batch of writes, a read of the sockets brings many
// requests). A batch goes at the end of the turn, or as soon as it holds `BATCH_MESSAGES`: the other
// thread then starts on the first requests of a burst (or writes the first answers of a commit)
// while this one makes the rest, where a batch per turn kept each thread idle while the other
// worked through the whole burst. The order of the messages is kept.
export interface Poster {
  postMessage(value: unknown): void;
}

/** The most messages a batch holds before it is posted (measured: 4 to 32 did about as well, ARCHITECTURE.md). */
const BATCH_MESSAGES = 16;

export class BatchedPort<T> {
  private pending: T[] = [];
  private flushing = false;

  constructor(private readonly target: Poster) {}

  post(message: T): void {
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => {
        this.flushing = false;
        this.flush();
      });
    }
    this.pending.push(message);
    if (this.pending.length >= BATCH_MESSAGES) this.flush();
  }

  private flush(): void {
    if (this.pending.length > 0) this.target.postMessage(this.pending.splice(0));
  }
}
