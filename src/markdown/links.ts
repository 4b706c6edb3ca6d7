// Links as Zulip's server writes them: only safe schemes (a refused link stays text), no scheme
// means http:// (or mailto: for an address), links into the realm become relative `#narrow/…`
// links, and a link without text shows its URL. No reference links.
import type MarkdownIt from 'markdown-it';
import type StateCore from 'markdown-it/lib/rules_core/state_core.mjs';
import { envOf } from './env.js';

const allowedSchemes = new Set(['http', 'https', 'ftp', 'file', 'bitcoin', 'geo', 'im', 'irc', 'ircs', 'magnet', 'mailto', 'matrix', 'mms', 'news', 'nntp', 'openpgp4fpr', 'sip', 'sms', 'smsto', 'ssh', 'tel', 'urn', 'webcal', 'wtai', 'xmpp']);

/** The href for a URL as written, or undefined when its scheme is not allowed. */
export function sanitizeUrl(url: string): string | undefined {
  const href = url.replace(/ /g, '%20');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(href)?.[1];
  if (scheme === undefined) {
    if (href.startsWith('//')) return sanitizeUrl(`http:${href}`);
    if (href.startsWith('/') || href.startsWith('#')) return href;
    const path = href.split(/[?#]/)[0]!;
    return path.includes('@') ? `mailto:${href}` : `http://${href}`;
  }
  return allowedSchemes.has(scheme.toLowerCase()) ? href : undefined;
}

/** Links into the realm's own narrows and uploads become relative. */
export function localHref(realmUrl: string | undefined, href: string): string {
  if (realmUrl === undefined) return href;
  const prefix = `${realmUrl}/`;
  return href.startsWith(`${prefix}#`) || href.startsWith(`${prefix}user_uploads/`) ? href.slice(prefix.length) : href;
}

/** Relative realm links, and the URL as the text of a link without any. */
function finishLinks(state: StateCore): void {
  const { realmUrl } = envOf(state);
  for (const block of state.tokens) {
    const children = block.children;
    if (block.type !== 'inline' || !children) continue;
    for (let i = 0; i < children.length; i++) {
      const open = children[i]!;
      if (open.type !== 'link_open' || open.markup === 'autolink') continue;
      const href = localHref(realmUrl, open.attrGet('href') ?? '');
      open.attrSet('href', href);
      const close = children.findIndex((token, j) => j > i && token.type === 'link_close');
      const inner = children.slice(i + 1, close);
      if (inner.every((token) => token.type === 'text' && token.content.trim() === '')) {
        const text = new state.Token('text', '', 0);
        text.content = href;
        children.splice(i + 1, close - i - 1, text);
      }
    }
  }
}

export function linksPlugin(md: MarkdownIt): void {
  md.validateLink = (url) => sanitizeUrl(url) !== undefined;
  md.normalizeLink = (url) => sanitizeUrl(url.trim()) ?? url;
  md.normalizeLinkText = (url) => url;
  md.core.ruler.push('zulip_links', finishLinks);
}
