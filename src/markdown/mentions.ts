// Zulip's mentions and channel links: `@**Name**` / `@**Name|id**` (silent `@_**…**`), wildcards
// `@**all**` and `@**topic**`, groups `@*group*`, channels `#**channel**`, `#**channel>topic**` and
// `#**channel>topic@message**`.
// Names resolve through the realm (unknown ones stay text); mentions inside quotes are silent.
import type MarkdownIt from 'markdown-it';
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs';
import type StateInline from 'markdown-it/lib/rules_inline/state_inline.mjs';
import type Token from 'markdown-it/lib/token.mjs';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../messages/emptyTopic.js';
import { channelFragment, topicFragment } from '../messages/links.js';
import { envOf } from './env.js';
import { escapeAttr, escapeText, pushHtml } from './html.js';

interface Mention {
  kind: 'user' | 'channel wildcard' | 'topic wildcard' | 'group';
  id: number;
  name: string;
  silent: boolean;
}

const channelWildcards = new Set(['all', 'everyone', 'channel', 'stream']);
const syntax = /@(_?)\*\*([^*\n]+)\*\*|@(_?)\*([^*\n]+)\*|#\*\*([^*\n]+)\*\*/y;

function mentionOf(state: StateInline, inner: string, silent: boolean, group: boolean): Mention | undefined {
  const resolver = envOf(state).resolver!;
  if (group) {
    const found = resolver.group(inner);
    return found && { kind: 'group', id: found.id, name: found.name, silent };
  }
  if (channelWildcards.has(inner)) return { kind: 'channel wildcard', id: 0, name: inner, silent };
  if (inner === 'topic') return { kind: 'topic wildcard', id: 0, name: inner, silent };
  const [name, id] = inner.split('|');
  const user = resolver.user(name!, id === undefined ? undefined : Number(id));
  return user && { kind: 'user', id: user.id, name: user.fullName, silent };
}

/** `#**channel**`, `#**channel>topic**` and `#**channel>topic@message ID**` (the topic may hold `>`
 * and `@`; the empty topic shows its display name in italics), as Zulip renders them. */
function channelLink(state: StateInline, inner: string): string | undefined {
  const separator = inner.indexOf('>');
  const channel = envOf(state).resolver!.channel(separator < 0 ? inner : inner.slice(0, separator));
  if (!channel) return undefined;
  const name = escapeText(channel.name);
  if (separator < 0) return `<a class="stream" data-stream-id="${channel.id}" href="${escapeAttr(`/#narrow/${channelFragment(channel.id, channel.name)}`)}">#${name}</a>`;
  const rest = inner.slice(separator + 1);
  const near = /^(.*)@(\d+)$/s.exec(rest);
  const topic = near ? near[1]! : rest;
  const href = `/#narrow/${topicFragment(channel.id, channel.name, topic)}`;
  const shown = `#${name} &gt; ${topic === '' ? `<em>${EMPTY_TOPIC_DISPLAY_NAME}</em>` : escapeText(topic)}`;
  if (near) return `<a class="message-link" href="${escapeAttr(`${href}/near/${near[2]}`)}">${shown} @ 💬</a>`;
  return `<a class="stream-topic" data-stream-id="${channel.id}" href="${escapeAttr(href)}">${shown}</a>`;
}

function mentionRule(state: StateInline, silent: boolean): boolean {
  const char = state.src[state.pos];
  if ((char !== '@' && char !== '#') || !envOf(state).resolver) return false;
  // Only after a space, an opening mark or a slash, as in Zulip.
  if (state.pos > 0 && !/[\s'"({[/<]/.test(state.src[state.pos - 1]!)) return false;
  syntax.lastIndex = state.pos;
  const match = syntax.exec(state.src);
  if (!match || state.pos + match[0].length > state.posMax) return false;
  const [whole, userSilent, userInner, groupSilent, groupInner, channelInner] = match;
  if (channelInner !== undefined) {
    const html = channelLink(state, channelInner);
    if (html === undefined) return false;
    if (!silent) pushHtml(state, html);
  } else {
    const mention = userInner !== undefined ? mentionOf(state, userInner, userSilent === '_', false) : mentionOf(state, groupInner!, groupSilent === '_', true);
    if (!mention) return false;
    if (!silent) state.push('zulip_mention', 'span', 0).meta = mention;
  }
  state.pos += whole!.length;
  return true;
}

/** Silences mentions inside quotes, then counts the others. */
function collectMentions(state: StateCore): void {
  const { mentions } = envOf(state);
  if (!mentions) return;
  let quoteDepth = 0;
  for (const block of state.tokens) {
    if (block.type === 'blockquote_open') quoteDepth++;
    if (block.type === 'blockquote_close') quoteDepth--;
    for (const token of block.children ?? []) {
      if (token.type !== 'zulip_mention') continue;
      const mention = token.meta as Mention;
      if (quoteDepth > 0) mention.silent = true;
      if (mention.silent) continue;
      if (mention.kind === 'user') mentions.userIds.add(mention.id);
      else if (mention.kind === 'group') mentions.groupIds.add(mention.id);
      else if (mention.kind === 'channel wildcard') mentions.channelWildcard = true;
      else mentions.topicWildcard = true;
    }
  }
}

function renderMention(tokens: Token[], idx: number): string {
  const { kind, id, name, silent } = tokens[idx]!.meta as Mention;
  const text = `${silent ? '' : '@'}${escapeText(name)}`;
  const quiet = silent ? ' silent' : '';
  if (kind === 'group') return `<span class="user-group-mention${quiet}" data-user-group-id="${id}">${text}</span>`;
  if (kind === 'topic wildcard') return `<span class="topic-mention${quiet}">${text}</span>`;
  return `<span class="user-mention${quiet}" data-user-id="${kind === 'user' ? id : '*'}">${text}</span>`;
}

export function mentionsPlugin(md: MarkdownIt): void {
  md.inline.ruler.before('zulip_emphasis', 'zulip_mentions', mentionRule);
  md.core.ruler.after('inline', 'zulip_collect_mentions', collectMentions);
  md.renderer.rules.zulip_mention = renderMention;
}
