// Bot storage (Zulip's BotStorageData): a bot's own key-value strings, kept for it between runs
// (the bot framework's `bot_handler.storage`), and the rule of its size limit.

/** Zulip's settings.USER_STATE_SIZE_LIMIT: the characters of every key and value of one bot. */
export const BOT_STORAGE_LIMIT = 10_000_000;

/** One key of a bot's storage and its value. */
export interface BotStorageEntry {
  key: string;
  value: string;
}

/** How many characters a bot's stored keys and values take, all of them. */
export interface BotStorageSize {
  characters: number;
}

const highSurrogate = /[\ud800-\udbff]/g;

/** Characters as Zulip counts them (Python's len: code points, so an emoji is one). Text from
 * clients is well formed (http/json.ts), so each high surrogate starts a pair. */
export const characters = (text: string): number => text.length - (text.match(highSurrogate)?.length ?? 0);

export const entrySize = (entry: BotStorageEntry): number => characters(entry.key) + characters(entry.value);

/** The characters of these entries, all of them. */
export function sizeOf(entries: Iterable<BotStorageEntry>): number {
  let size = 0;
  for (const entry of entries) size += entrySize(entry);
  return size;
}
