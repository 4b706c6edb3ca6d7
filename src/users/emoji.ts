// Emoji of statuses (and later reactions): a name alone, or a name checked against a code and a
// reaction type, resolved through the server's emoji catalogue (src/emoji/catalog.ts).
import { emojiByCode, emojiByName, extraEmoji } from '../emoji/catalog.js';

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
  const named = emojiByName(name);
  if (code === undefined && type === undefined) {
    if (named) return { emojiName: name, emojiCode: named.code, reactionType: 'unicode_emoji' };
    if (extraEmoji.has(name)) return { emojiName: name, emojiCode: name, reactionType: 'service_extra_emoji' };
    return 'unknown name';
  }
  switch (type ?? 'unicode_emoji') {
    case 'unicode_emoji': {
      const wanted = code ?? named?.code;
      if (wanted === undefined || !emojiByCode(wanted)) return named ? 'invalid code' : 'unknown name';
      return named && emojiByCode(wanted) === named ? { emojiName: name, emojiCode: wanted, reactionType: 'unicode_emoji' } : 'invalid name';
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
