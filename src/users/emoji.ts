// Emoji names and codes for statuses (and later reactions): Unicode emoji from iamcal's
// emoji-data (the emoji-datasource package, the source Zulip's own table is built from), and
// Zulip's extra emoji. Codes are lowercase, dash-separated hexadecimal code points.
import { createRequire } from 'node:module';

interface EmojiData {
  unified: string;
  non_qualified: string | null;
  short_names: string[];
}

const table = createRequire(import.meta.url)('emoji-datasource/emoji.json') as EmojiData[];

/** Every Unicode emoji name → the codes it may be written with (fully or not fully qualified). */
const codesByName = new Map<string, Set<string>>();
/** A Unicode emoji code → its canonical (first) name. */
const nameByCode = new Map<string, string>();
for (const emoji of table) {
  const codes = new Set([emoji.unified.toLowerCase(), ...(emoji.non_qualified ? [emoji.non_qualified.toLowerCase()] : [])]);
  for (const name of emoji.short_names) codesByName.set(name, codes);
  for (const code of codes) if (!nameByCode.has(code)) nameByCode.set(code, emoji.short_names[0]!);
}

/** Zulip's emoji outside Unicode and outside the organization's custom emoji. */
const extraEmoji = new Set(['zulip']);

export type ReactionType = 'unicode_emoji' | 'realm_emoji' | 'service_extra_emoji';

export interface Emoji {
  emojiName: string;
  emojiCode: string;
  reactionType: ReactionType;
}

export type EmojiProblem = 'unknown name' | 'invalid name' | 'invalid code' | 'invalid custom emoji';

/** Resolves a name alone (the code and type looked up) or checks a name against a code. Custom
 * emoji: the realm's, by ID (none exist yet, so every custom emoji is invalid). */
export function checkEmoji(name: string, code: string | undefined, type: string | undefined): Emoji | EmojiProblem {
  if (code === undefined && type === undefined) {
    const codes = codesByName.get(name);
    if (codes) return { emojiName: name, emojiCode: [...codes].at(-1)!, reactionType: 'unicode_emoji' };
    if (extraEmoji.has(name)) return { emojiName: name, emojiCode: name, reactionType: 'service_extra_emoji' };
    return 'unknown name';
  }
  switch (type ?? 'unicode_emoji') {
    case 'unicode_emoji': {
      const wanted = code ?? [...(codesByName.get(name) ?? [])].at(-1);
      if (wanted === undefined || !nameByCode.has(wanted)) return codesByName.has(name) ? 'invalid code' : 'unknown name';
      return codesByName.get(name)?.has(wanted) ? { emojiName: name, emojiCode: wanted, reactionType: 'unicode_emoji' } : 'invalid name';
    }
    case 'service_extra_emoji':
    case 'zulip_extra_emoji': {
      const wanted = code ?? name;
      if (!extraEmoji.has(wanted)) return 'invalid code';
      return name === wanted ? { emojiName: name, emojiCode: wanted, reactionType: 'service_extra_emoji' } : 'invalid name';
    }
    case 'realm_emoji':
      return 'invalid custom emoji';
    default:
      return 'invalid code';
  }
}
