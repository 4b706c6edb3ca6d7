// Emoji of statuses and reactions: a name alone, or a name checked against a code and a reaction
// type, resolved through the server's emoji catalogue (src/emoji/catalog.ts) and the realm's
// custom emoji (a CustomEmojiTable).
import { emojiByCode, emojiByName, extraEmoji } from '../emoji/catalog.js';

/** Zulip's reaction types (the project's spec calls zulip_extra_emoji service_extra_emoji in
 * statuses; both spellings are accepted). */
export type ReactionType = 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';

export interface Emoji {
  emojiName: string;
  emojiCode: string;
  reactionType: ReactionType;
}

export type EmojiProblem = 'unknown name' | 'invalid name' | 'invalid code' | 'invalid type' | 'invalid custom emoji' | 'invalid custom emoji name' | 'deactivated custom emoji';

/** The messages of Zulip's emoji checks (zerver/lib/emoji.py). */
export const emojiProblemMessages: Record<EmojiProblem, (name: string) => string> = {
  'unknown name': (name) => `Emoji '${name}' does not exist`,
  'invalid name': () => 'Invalid emoji name.',
  'invalid code': () => 'Invalid emoji code.',
  'invalid type': () => 'Invalid emoji type.',
  'invalid custom emoji': () => 'Invalid custom emoji.',
  'invalid custom emoji name': () => 'Invalid custom emoji name.',
  'deactivated custom emoji': () => 'This custom emoji has been deactivated.',
};

/** A custom emoji of a realm, as the checks see it. */
export interface CustomEmoji {
  /** Its ID, the emoji_code of realm_emoji reactions. */
  id: string;
  name: string;
  deactivated: boolean;
}

/** A realm's custom emoji: by ID (deactivated ones included) and, the active ones, by name. */
export interface CustomEmojiTable {
  byId(id: string): CustomEmoji | undefined;
  activeByName(name: string): CustomEmoji | undefined;
}

/** Zulip's get_emoji_data: the code and type a name stands for, custom emoji first. */
export function emojiNamed(custom: CustomEmojiTable, name: string): Emoji | 'unknown name' {
  const own = custom.activeByName(name);
  if (own) return { emojiName: name, emojiCode: own.id, reactionType: 'realm_emoji' };
  if (extraEmoji.has(name)) return { emojiName: name, emojiCode: name, reactionType: 'zulip_extra_emoji' };
  const named = emojiByName(name);
  if (named) return { emojiName: name, emojiCode: named.code, reactionType: 'unicode_emoji' };
  return 'unknown name';
}

/** The form of Zulip's emoji names. */
const ZULIP_EMOJI_NAME = /^[a-z0-9_]{1,60}$/;

/** Zulip's check_emoji_request: whether a name, a code and a type name one usable emoji. */
export function checkEmojiRequest(custom: CustomEmojiTable, name: string, code: string, type: string): Emoji | EmojiProblem {
  switch (type) {
    case 'unicode_emoji': {
      const coded = emojiByCode(code);
      if (!coded) return 'invalid code';
      const named = emojiByName(name);
      // Zulip's clients name emoji from Zulip's curated table (thumbs_up, big_smile…), which no
      // package carries: a name of Zulip's form that the catalogue does not know is taken as the
      // client gives it, for a valid code; a name of another emoji is refused.
      const curatedName = named === undefined && ZULIP_EMOJI_NAME.test(name);
      return named === coded || curatedName ? { emojiName: name, emojiCode: code, reactionType: 'unicode_emoji' } : 'invalid name';
    }
    case 'zulip_extra_emoji':
      if (!extraEmoji.has(code)) return 'invalid code';
      return name === code ? { emojiName: name, emojiCode: code, reactionType: 'zulip_extra_emoji' } : 'invalid name';
    case 'realm_emoji': {
      const own = custom.byId(code);
      if (!own) return 'invalid custom emoji';
      if (own.name !== name) return 'invalid custom emoji name';
      if (own.deactivated) return 'deactivated custom emoji';
      return { emojiName: name, emojiCode: code, reactionType: 'realm_emoji' };
    }
    default:
      return 'invalid type';
  }
}

/** A reaction type as passed, the spec's spelling service_extra_emoji read as Zulip's. */
export const canonicalReactionType = (type: string): string => (type === 'service_extra_emoji' ? 'zulip_extra_emoji' : type);

/** The code and type a request names: those passed, the missing ones those of the name (Zulip
 * looks them up with get_emoji_data); not yet checked. */
export function requestedEmoji(custom: CustomEmojiTable, name: string, code: string | undefined, type: string | undefined): { code: string; type: string } | 'unknown name' {
  if (code !== undefined && type !== undefined) return { code, type: canonicalReactionType(type) };
  const named = emojiNamed(custom, name);
  if (typeof named === 'string') return named;
  return { code: code ?? named.emojiCode, type: type === undefined ? named.reactionType : canonicalReactionType(type) };
}

/** A name alone (its code and type looked up), or a name checked against a code and a type. */
export function checkEmoji(custom: CustomEmojiTable, name: string, code: string | undefined, type: string | undefined): Emoji | EmojiProblem {
  const requested = requestedEmoji(custom, name, code, type);
  if (typeof requested === 'string') return requested;
  return checkEmojiRequest(custom, name, requested.code, requested.type);
}
