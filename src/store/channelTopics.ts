// Channels' messages in memory: each message's ID with its topic as a number (the topic's index
// in the channel's list of topic names), so that a window of a channel, and the header of any of
// its messages, is read without decoding LMDB rows. Loaded from the channel's index on first use
// and kept in step with it (store.ts: indexInChannel, unindexInChannel).
import type { Database } from 'lmdb';
import { RowTable, TableCache } from './rowTables.js';

/** How many channel messages memory holds at most, together. */
const CHANNEL_ROWS = 4_000_000;

/** One channel's messages: IDs ascending, each with its topic in `first`. */
export class TopicTable extends RowTable {
  readonly names: string[] = [];
  private readonly numbers = new Map<string, number>();

  /** The topic's number, given one when new. */
  numberOf(topic: string): number {
    let number = this.numbers.get(topic);
    if (number === undefined) {
      number = this.names.push(topic) - 1;
      this.numbers.set(topic, number);
    }
    return number;
  }

  /** The numbers of a topic's spellings (topics match whatever their case). */
  numbersOf(topic: string): number[] {
    const lower = topic.toLowerCase();
    const numbers: number[] = [];
    this.names.forEach((name, number) => {
      if (name.toLowerCase() === lower) numbers.push(number);
    });
    return numbers;
  }

  topicAt(index: number): string {
    return this.names[this.first[index]!]!;
  }
}

export class ChannelTopics {
  private readonly cache = new TableCache<TopicTable>(CHANNEL_ROWS);

  /** `index` is the channels' index in LMDB: [channel ID, message ID] → topic. */
  constructor(private readonly index: Database<string, [number, number]>) {}

  table(channelId: number): TopicTable {
    return this.cache.load(channelId, () => {
      // lmdb-js keeps its state in the options object: one each.
      const range = () => ({ start: [channelId, 0], end: [channelId, Number.MAX_SAFE_INTEGER] });
      const table = new TopicTable(this.index.getKeysCount(range()));
      for (const { key, value } of this.index.getRange(range())) table.push(key[1], table.numberOf(value), 0);
      return table;
    });
  }

  /** A message entered the channel's index: added when it is the newest, else the table is read
   * again when next needed. */
  added(channelId: number, messageId: number, topic: string): void {
    const table = this.cache.get(channelId);
    if (table && messageId > table.last) {
      table.push(messageId, table.numberOf(topic), 0);
      this.cache.changed(channelId, 1);
    } else if (table) this.cache.delete(channelId);
  }

  /** A message left the channel's index. */
  removed(channelId: number): void {
    this.cache.delete(channelId);
  }

  /** Forgets the tables: after another writer changed rows, or after a write was rolled back
   * (`rolledBack`: only those it loaded or changed). */
  forget(rolledBack = false): void {
    if (rolledBack) this.cache.dropWritten();
    else this.cache.clear();
  }

  /** A write begins (see TableCache.beginWrite). */
  beginWrite(): void {
    this.cache.beginWrite();
  }
}
