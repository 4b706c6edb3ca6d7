// The message renderer: markdown-it configured as Zulip's server Markdown, one plugin per syntax
// (./*.ts). Message content resolves mentions, channels and linkifiers in its realm; descriptions
// and profile fields use the same syntax without a realm.
import MarkdownIt from 'markdown-it';
import type { CompiledLinkifier } from '../messages/linkifiers.js';
import { autolinkPlugin } from './autolink.js';
import { codeBlockPlugin } from './code.js';
import { backticksPlugin } from './backticks.js';
import { blocksPlugin } from './blocks.js';
import { emojiPlugin } from './emoji.js';
import { emoticonsPlugin } from './emoticons.js';
import { emphasisPlugin } from './emphasis.js';
import type { MentionResolver, Mentions, RenderEnv } from './env.js';
import { fencesPlugin } from './fences.js';
import { htmlPlugin } from './html.js';
import { imagesPlugin } from './images.js';
import { linkifiersPlugin } from './linkifiers.js';
import { linksPlugin } from './links.js';
import { listsPlugin } from './lists.js';
import { mathPlugin } from './math.js';
import { mentionsPlugin } from './mentions.js';
import { timePlugin } from './time.js';

export type { MentionResolver, Mentions } from './env.js';

// Raw HTML is never passed through; every newline is a line break; no typographic replacements.
const markdown = new MarkdownIt({ html: false, linkify: false, breaks: true, typographer: false })
  .disable('image')
  .use(htmlPlugin)
  .use(blocksPlugin)
  .use(fencesPlugin)
  .use(codeBlockPlugin)
  .use(listsPlugin)
  .use(backticksPlugin)
  .use(emphasisPlugin)
  .use(mathPlugin)
  .use(mentionsPlugin)
  .use(timePlugin)
  .use(linksPlugin)
  .use(autolinkPlugin)
  .use(linkifiersPlugin)
  .use(emoticonsPlugin)
  .use(emojiPlugin)
  .use(imagesPlugin);

const render = (source: string, env: RenderEnv): string => markdown.render(source, env).replace(/\n+$/, '');

/** Plain Markdown: descriptions, custom profile fields. */
export function renderMarkdown(source: string): string {
  return render(source, {});
}

export interface MessageOptions {
  linkifiers?: readonly CompiledLinkifier[];
  /** The realm's URL: links into it become relative. */
  realmUrl?: string;
  /** The sender's translate_emoticons setting. */
  translateEmoticons?: boolean;
  /** When the message is rendered (ms; the server's clock). */
  now?: number;
}

/** Message content: Zulip's syntax resolved in the realm, its linkifiers applied, and who it mentions. */
export function renderMessage(source: string, resolver: MentionResolver, options: MessageOptions = {}): { html: string; mentions: Mentions } {
  const mentions: Mentions = { userIds: new Set(), groupIds: new Set(), channelWildcard: false, topicWildcard: false };
  return { html: render(source, { ...options, resolver, mentions }), mentions };
}
