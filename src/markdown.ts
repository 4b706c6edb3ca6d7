// Markdown rendering (markdown-it) for message content and channel descriptions: raw HTML is
// escaped, links are recognised.
import MarkdownIt from 'markdown-it';

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: true });

export function renderMarkdown(source: string): string {
  return markdown.render(source).trimEnd();
}
