// NATS messages gathered within a turn of the event loop and sent once it ends, as few as the
// connection's largest message allows: nats-server's cost follows the count of its messages, not
// their bytes. Items are msgpack values one after another (read back with `unpackMultiple`).
import type { NatsConnection } from '@nats-io/transport-node';

/** NATS's default largest message, should the server not say its own. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/** The largest message the connection's server takes. */
export function maxPayload(nc: NatsConnection): number {
  return nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
}

export interface GatheredOptions<Item> {
  /** Whether an item is still to be sent when the turn ends (all are, unless told). */
  live?: (item: Item) => boolean;
  /** What must reach NATS before any message of these: sent first. */
  behind?: { flush(): void };
}

export class Gathered<Item> {
  private waiting = new Map<string, { items: Item[]; bytes: Uint8Array[] }>();

  constructor(
    private readonly nc: NatsConnection,
    /** Sends one message of `items` (publishes `data`). */
    private readonly send: (subject: string, data: Uint8Array, items: Item[]) => void,
    /** Told of a message that could not be published (an item too big alone fails alone). */
    private readonly failed: (items: Item[], error: Error) => void,
    private readonly options: GatheredOptions<Item> = {},
  ) {}

  add(subject: string, bytes: Uint8Array, item: Item): void {
    if (this.waiting.size === 0) setImmediate(() => this.flush());
    let batch = this.waiting.get(subject);
    if (!batch) this.waiting.set(subject, (batch = { items: [], bytes: [] }));
    batch.items.push(item);
    batch.bytes.push(bytes);
  }

  /** Sends what was gathered now, rather than when the turn ends. */
  flush(): void {
    if (this.waiting.size === 0) return;
    this.options.behind?.flush();
    const { live = () => true } = this.options;
    const limit = maxPayload(this.nc);
    const waiting = this.waiting;
    this.waiting = new Map();
    for (const [subject, batch] of waiting) {
      const kept = batch.items.map((item, index) => [item, batch.bytes[index]!] as const).filter(([item]) => live(item));
      for (let start = 0; start < kept.length; ) {
        let end = start + 1;
        let size = kept[start]![1].length;
        while (end < kept.length && size + kept[end]![1].length <= limit) size += kept[end++]![1].length;
        const part = kept.slice(start, end);
        try {
          this.send(subject, part.length === 1 ? part[0]![1] : Buffer.concat(part.map(([, bytes]) => bytes), size), part.map(([item]) => item));
        } catch (error) {
          this.failed(part.map(([item]) => item), error instanceof Error ? error : new Error(String(error)));
        }
        start = end;
      }
    }
  }
}
