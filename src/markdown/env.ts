// What one rendering knows and collects: the realm's resolvers and settings going in, the
// mentions and stashed HTML produced on the way. Every plugin reads it from markdown-it's `env`.
import type { CompiledLinkifier } from '../messages/linkifiers.js';

/** How names in the text resolve, supplied by the realm that renders. */
export interface MentionResolver {
  user(name: string, id: number | undefined): { id: number; fullName: string } | undefined;
  group(name: string): { id: number; name: string } | undefined;
  channel(name: string): { id: number; name: string } | undefined;
}

/** Who a message mentions, collected while rendering (silent mentions, quotes and code do not count). */
export interface Mentions {
  userIds: Set<number>;
  groupIds: Set<number>;
  channelWildcard: boolean;
  topicWildcard: boolean;
}

export interface RenderEnv {
  resolver?: MentionResolver;
  mentions?: Mentions;
  linkifiers?: readonly CompiledLinkifier[];
  /** The realm's URL without a trailing slash: links into it become relative. */
  realmUrl?: string;
  /** The rendering user's translate_emoticons setting. */
  translateEmoticons?: boolean;
  /** When the rendering happens (ms): a `<time:…>` without a date or year takes it from this. */
  now?: number;
  /** HTML made before block parsing (fences), referred to by placeholder lines. */
  stash?: string[];
}

export const envOf = (state: { env: unknown }): RenderEnv => state.env as RenderEnv;
