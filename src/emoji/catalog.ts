// The one emoji catalogue of the server: Unicode emoji names and code points from iamcal's
// emoji-data (the emoji-datasource package), used by message rendering and statuses alike.
// Codes are lowercase, dash-separated hexadecimal code points without U+FE0F, as Zulip writes them.
import { createRequire } from 'node:module';

interface EmojiData {
  added_in: string;
  unified: string;
  non_qualified: string | null;
  short_names: string[];
  category: string;
}

export interface CatalogEmoji {
  /** The code without variation selectors (Zulip's emoji_code). */
  code: string;
  /** The fully qualified code, when it differs (a status may name either). */
  qualified: string;
  /** Every name, the canonical one first. */
  names: string[];
}

const data = createRequire(import.meta.url)('emoji-datasource/emoji.json') as EmojiData[];

// Zulip's clients draw emoji up to Emoji 15.0; newer ones would not show, so they stay text.
const NEWEST_EMOJI_VERSION = 15.0;

const byName = new Map<string, CatalogEmoji>();
const byCode = new Map<string, CatalogEmoji>();
for (const entry of data) {
  // Skin tone modifiers are not emoji of their own (Zulip offers none of them by name).
  if (entry.category === 'Component' || Number(entry.added_in) > NEWEST_EMOJI_VERSION) continue;
  const qualified = entry.unified.toLowerCase();
  const emoji: CatalogEmoji = { code: qualified.split('-').filter((part) => part !== 'fe0f').join('-'), qualified, names: entry.short_names };
  for (const name of emoji.names) if (!byName.has(name)) byName.set(name, emoji);
  for (const code of [emoji.code, qualified]) if (!byCode.has(code)) byCode.set(code, emoji);
}

/** The emoji a name stands for. */
export const emojiByName = (name: string): CatalogEmoji | undefined => byName.get(name);

/** The emoji of a code, qualified or not. */
export const emojiByCode = (code: string): CatalogEmoji | undefined => byCode.get(code);

/** Zulip's emoji outside Unicode (reaction type zulip_extra_emoji), by name. */
export const extraEmoji: ReadonlySet<string> = new Set(['zulip']);

/** Every code → its names: the `code_to_names` table clients load through server_emoji_data_url. */
export function codeToNames(): Record<string, string[]> {
  const table: Record<string, string[]> = {};
  for (const emoji of new Set(byCode.values())) table[emoji.code] = emoji.names;
  return table;
}
