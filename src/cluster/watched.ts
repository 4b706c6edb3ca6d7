// A key-value bucket as this node last saw it: each key's value and revision, and when (on this
// node's own monotonic clock) its revision last changed. Liveness is judged from that, never by
// comparing clocks of different machines: a lease or heartbeat not rewritten for long enough, as
// seen here, has lapsed.
import type { KV } from '@nats-io/kv';
import { Packr } from 'msgpackr';

export const kvCodec = new Packr({ useRecords: false });

export interface Seen<T> {
  value: T;
  revision: number;
  /** performance.now() when this revision was first seen. */
  seenAt: number;
}

export class Watched<T> {
  private readonly entries = new Map<string, Seen<T>>();
  private stop: (() => void) | undefined;

  constructor(
    readonly kv: KV,
    /** Told of every new value (and of deletions, as undefined). */
    private readonly onChange: (key: string, value: T | undefined) => void = () => undefined,
  ) {}

  /** Starts watching; resolves once the bucket's current values are in. */
  async start(): Promise<void> {
    const watch = await this.kv.watch({ key: '>' });
    this.stop = () => watch.stop();
    let resolveLoaded: () => void = () => undefined;
    const loaded = new Promise<void>((resolve) => (resolveLoaded = resolve));
    // The bucket's current values come first, the last of them with nothing left pending (delta 0).
    if ((await this.kv.status()).values === 0) resolveLoaded();
    void (async () => {
      for await (const entry of watch) {
        let value: T | undefined;
        if (entry.operation === 'PUT') {
          value = kvCodec.unpack(entry.value) as T;
          this.entries.set(entry.key, { value, revision: entry.revision, seenAt: performance.now() });
        } else this.entries.delete(entry.key);
        // What a listener throws must not end the watch: the node would stop seeing the bucket.
        try {
          this.onChange(entry.key, value);
        } catch {
          // The listener's own failure; the bucket as seen here stays current.
        }
        if (entry.delta === 0 || entry.isUpdate) resolveLoaded();
      }
    })();
    await loaded;
  }

  close(): void {
    this.stop?.();
  }

  get(key: string): Seen<T> | undefined {
    return this.entries.get(key);
  }

  *[Symbol.iterator](): Generator<[string, Seen<T>]> {
    yield* this.entries;
  }

  /** Whether the key was rewritten within `ms` (a live heartbeat or lease). */
  fresh(key: string, ms: number): boolean {
    const seen = this.entries.get(key);
    return seen !== undefined && performance.now() - seen.seenAt <= ms;
  }
}
