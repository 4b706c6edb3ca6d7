// Inline image previews, as Zulip adds them after rendering: each linked image URL (outside
// quotes, each once, at most 24 per message) gets a `message_inline_image` preview served through
// the server's /thumbnail, after its paragraph, inside its list item, or at the end.
import type MarkdownIt from 'markdown-it';
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs';
import type Token from 'markdown-it/lib/token.mjs';
import { escapeAttr } from './html.js';

const MAX_PREVIEWS = 24;
const imageExtensions = /\.(?:bmp|gif|jpe|jpeg|jpg|png|webp)$/;

function imagePath(href: string): boolean {
  try {
    return /^https?:/i.test(href) && imageExtensions.test(new URL(href).pathname.toLowerCase());
  } catch {
    return false;
  }
}

// Python's urlencode (quote_plus): only letters, digits and _.-~ stay as they are.
const formEncode = (text: string): string =>
  encodeURIComponent(text)
    .replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');

/** GitHub's page of a file links to the page; its raw address is the image. */
function imageSource(href: string): string {
  const url = new URL(href);
  const parts = url.pathname.split('/');
  if (url.hostname === 'github.com' && parts[3] === 'blob') return `https://raw.githubusercontent.com${[...parts.slice(0, 3), ...parts.slice(4)].join('/')}`;
  return href;
}

function previewHtml(href: string, title: string | undefined): string {
  const source = formEncode(imageSource(href));
  const titled = title === undefined ? '' : ` title="${escapeAttr(title)}"`;
  return `<div class="message_inline_image"><a href="${escapeAttr(href)}"${titled}><img data-src-fullsize="/thumbnail?url=${source}&amp;size=full" src="/thumbnail?url=${source}&amp;size=thumbnail"></a></div>`;
}

interface Found {
  href: string;
  text: string;
  /** The inline token holding the link, and the link's index among its children. */
  inline: Token;
  index: number;
}

function findLinks(tokens: Token[]): Found[] {
  const found: Found[] = [];
  let quoteDepth = 0;
  for (const token of tokens) {
    if (token.type === 'blockquote_open') quoteDepth++;
    if (token.type === 'blockquote_close') quoteDepth--;
    if (token.type !== 'inline' || quoteDepth > 0) continue;
    token.children?.forEach((child, index, children) => {
      if (child.type !== 'link_open' || child.level !== 0) return;
      const text = children[index + 1]?.type === 'text' ? children[index + 1]!.content : '';
      found.push({ href: child.attrGet('href') ?? '', text, inline: token, index });
    });
  }
  return found;
}

function inlineImages(state: StateCore): void {
  const found = findLinks(state.tokens);
  if (found.length === 0 || new Set(found.map((link) => link.href)).size > MAX_PREVIEWS) return;
  const seen = new Set<string>();
  const atEnd: string[] = [];
  for (const link of found) {
    if (seen.has(link.href) || !imagePath(link.href)) continue;
    seen.add(link.href);
    const html = previewHtml(link.href, link.text === link.href ? undefined : link.text);
    const at = state.tokens.indexOf(link.inline);
    const opener = state.tokens[at - 1]!;
    const children = link.inline.children!;
    const alone = children.length === 3 && link.text === link.href;
    if (opener.type === 'paragraph_open' && opener.hidden) {
      // A tight list item: the preview goes inside it, and replaces a link that was all it held.
      const preview = Object.assign(new state.Token('html_inline', '', 0), { content: html });
      if (alone) children.splice(0, 3, preview);
      else children.push(preview);
    } else if (opener.type === 'paragraph_open') {
      // After the paragraph and the previews already placed after it; a bare link's paragraph goes.
      let after = at + 2;
      while (state.tokens[after]?.meta === 'inline image') after++;
      const preview = Object.assign(new state.Token('html_block', '', 0), { content: html, meta: 'inline image' });
      if (alone) state.tokens.splice(at - 1, 3, preview);
      else state.tokens.splice(after, 0, preview);
    } else {
      atEnd.push(html);
    }
  }
  for (const html of atEnd) state.tokens.push(Object.assign(new state.Token('html_block', '', 0), { content: html }));
}

export function imagesPlugin(md: MarkdownIt): void {
  md.core.ruler.push('zulip_inline_images', inlineImages);
}
