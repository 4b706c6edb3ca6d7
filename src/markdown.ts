// Markdown rendering (markdown-it) for message content and descriptions, with Zulip's syntax:
// user mentions `@**Name**` / `@**Name|id**` (silent `@_**…**`, wildcards `@**all**`, `@**topic**`),
// group mentions `@*group*`, and channel links `#**channel**` / `#**channel>topic**`. Raw HTML is
// escaped; names resolve through the realm, and unknown ones stay plain text. The realm's
// linkifiers turn pattern matches in plain text into links. `<time:…>` is a global time.
import MarkdownIt from 'markdown-it';
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs';
import type StateInline from 'markdown-it/lib/rules_inline/state_inline.mjs';
import type Token from 'markdown-it/lib/token.mjs';
import type { CompiledLinkifier } from './messages/linkifiers.js';

/** How names in the text resolve, supplied by the realm that renders. */
export interface MentionResolver {
  user(name: string, id: number | undefined): { id: number; fullName: string } | undefined;
  group(name: string): { id: number; name: string } | undefined;
  channel(name: string): { id: number; name: string } | undefined;
}

/** Who a message mentions, collected while rendering (silent mentions and code do not count). */
export interface Mentions {
  userIds: Set<number>;
  groupIds: Set<number>;
  channelWildcard: boolean;
  topicWildcard: boolean;
}

interface RenderEnv {
  resolver?: MentionResolver;
  mentions?: Mentions;
  linkifiers?: readonly CompiledLinkifier[];
}

const channelWildcards = new Set(['all', 'everyone', 'channel', 'stream']);
const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const slug = (text: string): string => encodeURIComponent(text.replace(/ /g, '-')).replace(/\./g, '.2E').replace(/%/g, '.');

function html(state: StateInline, content: string): void {
  const token = state.push('html_inline', '', 0);
  token.content = content;
}

function mention(resolver: MentionResolver, mentions: Mentions, silent: boolean, inner: string): string | undefined {
  if (channelWildcards.has(inner)) {
    if (!silent) mentions.channelWildcard = true;
    return `<span class="user-mention${silent ? ' silent' : ''}" data-user-id="*">${silent ? '' : '@'}${escape(inner)}</span>`;
  }
  if (inner === 'topic') {
    if (!silent) mentions.topicWildcard = true;
    return `<span class="topic-mention${silent ? ' silent' : ''}">${silent ? '' : '@'}topic</span>`;
  }
  const [name, id] = inner.split('|');
  const user = resolver.user(name!, id === undefined ? undefined : Number(id));
  if (!user) return undefined;
  if (!silent) mentions.userIds.add(user.id);
  return `<span class="user-mention${silent ? ' silent' : ''}" data-user-id="${user.id}">${silent ? '' : '@'}${escape(user.fullName)}</span>`;
}

function channelLink(resolver: MentionResolver, inner: string): string | undefined {
  const [channelName, topic] = inner.split('>');
  const channel = resolver.channel(channelName!);
  if (!channel) return undefined;
  const base = `/#narrow/channel/${channel.id}-${slug(channel.name)}`;
  if (topic === undefined) return `<a class="stream" data-stream-id="${channel.id}" href="${base}">#${escape(channel.name)}</a>`;
  return `<a class="stream-topic" data-stream-id="${channel.id}" href="${base}/topic/${slug(topic)}">#${escape(channel.name)} &gt; ${escape(topic)}</a>`;
}

/** The inline rule: @**…**, @_**…**, @*…*, #**…** at the current position. */
function zulipSyntax(state: StateInline, silent: boolean): boolean {
  const { resolver, mentions } = state.env as RenderEnv;
  if (!resolver || !mentions) return false;
  const rest = state.src.slice(state.pos);
  const match = /^(@_?\*\*([^*\n]+)\*\*|@\*([^*\n]+)\*|#\*\*([^*\n]+)\*\*)/.exec(rest);
  if (!match) return false;
  const [whole, , userInner, groupInner, channelInner] = match;
  let rendered: string | undefined;
  if (userInner !== undefined) rendered = mention(resolver, mentions, whole!.startsWith('@_'), userInner);
  else if (groupInner !== undefined) {
    const group = resolver.group(groupInner);
    if (group && !silent) mentions.groupIds.add(group.id);
    rendered = group && `<span class="user-group-mention" data-user-group-id="${group.id}">@${escape(group.name)}</span>`;
  } else rendered = channelLink(resolver, channelInner!);
  if (rendered === undefined) return false;
  if (!silent) html(state, rendered);
  state.pos += whole!.length;
  return true;
}

/** Zulip's global times, `<time:2026-11-22T10:00:00+00:00>`: shown in each reader's time zone. */
function globalTime(state: StateInline, silent: boolean): boolean {
  const match = /^<time:([^>\n]+)>/.exec(state.src.slice(state.pos));
  if (!match) return false;
  const when = new Date(match[1]!);
  if (Number.isNaN(when.getTime())) return false;
  if (!silent) html(state, `<time datetime="${when.toISOString().replace(/\.\d{3}Z$/, 'Z')}">${escape(match[1]!)}</time>`);
  state.pos += match[0].length;
  return true;
}

/** The earliest linkifier match in a text, first linkifier winning ties (Zulip's order). */
function firstMatch(linkifiers: readonly CompiledLinkifier[], text: string) {
  let best: { start: number; end: number; href: string } | undefined;
  for (const linkifier of linkifiers) {
    const matcher = linkifier.regex.matcher(text);
    if (!matcher.find()) continue;
    if (best && matcher.start() >= best.start) continue;
    const values = Object.fromEntries(linkifier.groups.map((group) => [group, matcher.group(group) ?? '']));
    best = { start: matcher.start(), end: matcher.end(), href: linkifier.expand(values) };
  }
  return best;
}

/** Linkifiers turn matches in plain text (not code, not existing links) into links. */
function linkifierRule(state: StateCore): void {
  const linkifiers = (state.env as RenderEnv).linkifiers;
  if (!linkifiers || linkifiers.length === 0) return;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const children: Token[] = [];
    let insideLink = 0;
    for (const token of block.children) {
      if (token.type === 'link_open') insideLink++;
      if (token.type === 'link_close') insideLink--;
      if (token.type !== 'text' || insideLink > 0) {
        children.push(token);
        continue;
      }
      let rest = token.content;
      for (let match = firstMatch(linkifiers, rest); match && match.end > match.start; match = firstMatch(linkifiers, rest)) {
        const before = new state.Token('text', '', 0);
        before.content = rest.slice(0, match.start);
        const open = new state.Token('link_open', 'a', 1);
        open.attrs = [['href', match.href]];
        const text = new state.Token('text', '', 0);
        text.content = rest.slice(match.start, match.end);
        children.push(before, open, text, new state.Token('link_close', 'a', -1));
        rest = rest.slice(match.end);
      }
      const after = new state.Token('text', '', 0);
      after.content = rest;
      children.push(after);
    }
    block.children = children;
  }
}

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: true });
markdown.inline.ruler.before('emphasis', 'zulip_syntax', zulipSyntax);
markdown.inline.ruler.before('autolink', 'zulip_time', globalTime);
markdown.core.ruler.after('inline', 'zulip_linkifiers', linkifierRule);

/** Plain Markdown: descriptions, custom profile fields. */
export function renderMarkdown(source: string): string {
  return markdown.render(source, {}).trimEnd();
}

/** Message content: Zulip's syntax resolved in the realm, its linkifiers applied, and who it mentions. */
export function renderMessage(source: string, resolver: MentionResolver, linkifiers: readonly CompiledLinkifier[] = []): { html: string; mentions: Mentions } {
  const mentions: Mentions = { userIds: new Set(), groupIds: new Set(), channelWildcard: false, topicWildcard: false };
  const env: RenderEnv = { resolver, mentions, linkifiers };
  return { html: markdown.render(source, env).trimEnd(), mentions };
}
