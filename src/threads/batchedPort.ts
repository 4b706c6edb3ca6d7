// Messages between the I/O thread and the realm thread go as one post per turn of the event loop:
// a post has a fixed cost on both sides (the copy's setup, waking the other thread), and under load
// a turn makes many messages (a commit answers a batch of writes, a read of the sockets brings many
// requests). The order of the messages is kept.
export interface Poster {
  postMessage(value: unknown): void;
}

export class BatchedPort<T> {
  private pending: T[] = [];

  constructor(private readonly target: Poster) {}

  post(message: T): void {
    if (this.pending.length === 0) setImmediate(() => this.target.postMessage(this.pending.splice(0)));
    this.pending.push(message);
  }
}
