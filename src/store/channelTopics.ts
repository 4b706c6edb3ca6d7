// Channels' messages in memory: each message's ID with its topic as a number (the topic's index
// in the channel's list of topic names), so that a window of a channel, and the header of any of
// its messages, is read without decoding LMDB rows. Loaded from the channel's index on first use
// and kept in step with it (store.ts: indexInChannel, unindexInChannel).
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

  topicAt(index: number): string {
    return this.names[this.first[index]!]!;
  }
}

export class ChannelTopics {
  private readonly cache = new TableCache<TopicTable>(CHANNEL_ROWS);

  /** `rows` reads a channel's index from LMDB: [message ID, topic], oldest first. */
  constructor(private readonly rows: (channelId: number) => Iterable<[messageId: number, topic: string]>) {}

  table(channelId: number): TopicTable {
    return this.cache.load(channelId, () => {
      const table = new TopicTable(0);
      for (const [id, topic] of this.rows(channelId)) table.push(id, table.numberOf(topic), 0);
      return table;
    });
  }

  /** A channel message's topic (undefined when the message is not in the channel). */
  topicOf(channelId: number, messageId: number): string | undefined {
    const table = this.table(channelId);
    const at = table.indexOf(messageId);
    return at < 0 ? undefined : table.topicAt(at);
  }

  /** A message entered the channel's index: added when it is the newest, else the table is read
   * again when next needed. */
  added(channelId: number, messageId: number, topic: string): void {
    const table = this.cache.get(channelId);
    if (table && messageId > table.last) {
      table.push(messageId, table.numberOf(topic), 0);
      this.cache.grew(1);
    } else if (table) this.cache.delete(channelId);
  }

  /** A message left the channel's index. */
  removed(channelId: number): void {
    this.cache.delete(channelId);
  }

  forget(): void {
    this.cache.clear();
  }
}
