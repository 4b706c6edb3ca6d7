// Messages between the I/O thread and the realm thread go in batches: a post has a fixed cost on
// both sides (the copy's setup, waking the other thread), and under load a turn of the event loop
// makes many messages (a commit answers a batch of writes, a read of the sockets brings many
// requests). A batch goes at the end of the turn, or, where a port has a cap, as soon as it holds
// that many: the I/O thread's requests go so, and the realm thread starts on the first of a burst
// while the I/O thread reads the rest, where a batch per turn kept each thread idle while the other
// worked through the whole burst. The realm thread's batches go once per turn: the answers of a
// commit follow its events in the same batch, so the I/O thread writes them before it delivers the
// events to the queues (queues.ts). The order of the messages is kept.
export interface Poster {
  postMessage(value: unknown): void;
}

export class BatchedPort<T> {
  private pending: T[] = [];
  private scheduled = false;

  constructor(
    private readonly target: Poster,
    /** The most messages a batch holds before it goes, without waiting for the end of the turn. */
    private readonly cap = Infinity,
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
    if (this.pending.length >= this.cap) {
      try {
        this.flush();
      } catch (error) {
        // A message that cannot be copied is a bug: it ends the thread, as it does from the end of
        // the turn, rather than failing whichever request happened to fill the batch.
        setImmediate(() => {
          throw error;
        });
      }
    }
  }

  private flush(): void {
    if (this.pending.length > 0) this.target.postMessage(this.pending.splice(0));
  }
}
