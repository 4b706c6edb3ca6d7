// Slack's rich_text blocks (what Slack's own composer makes) in Zulip's Markdown, as Zulip renders
// them (zerver/data_import/slack_message_conversion.py): sections of styled text, links, emoji and
// mentions; bulleted and numbered lists; quotes and preformatted text in fences.
import type { Payload } from './payload.js';
import { broadcasts, everyone, slackChannel, slackUser } from './slackMrkdwn.js';

/** A fence longer than any run of backticks in the text it holds. */
function fenced(info: string, text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

/** Styles apply to the words; the spaces Slack keeps at a piece's end stay outside the markers. */
function styled(element: Payload, text: string): string {
  const style = element.get('style');
  const words = text.trimEnd();
  if (!style.exists || words.trim() === '') return text;
  const on = (name: string): boolean => style.get(name).optBool() === true;
  let marked = words;
  if (on('code')) marked = `\`${marked}\``;
  if (on('bold')) marked = `**${marked}**`;
  if (on('italic')) marked = `*${marked}*`;
  if (on('strike')) marked = `~~${marked}~~`;
  return marked + text.slice(words.length);
}

const children = (element: Payload): string[] => element.get('elements').list().map(richElement);

function richElement(element: Payload): string {
  switch (element.get('type').str()) {
    case 'rich_text_section':
      return children(element).join('');
    case 'rich_text_list': {
      const marker = element.get('style').str() === 'ordered' ? '1.' : '-';
      // Three spaces a level nest a list item reliably in Zulip's Markdown.
      const indent = ' '.repeat(3 * (element.get('indent').optNum() ?? 0));
      return children(element)
        .map((item) => `${indent}${marker} ${item}`)
        .join('\n');
    }
    case 'rich_text_quote':
      return fenced('quote', children(element).join(''));
    case 'rich_text_preformatted':
      return fenced('text', children(element).join(''));
    case 'text':
      return styled(element, element.get('text').str());
    case 'link': {
      const url = element.get('url').str();
      const text = element.get('text').optStr();
      return styled(element, text && text !== url ? `[${text}](${url})` : url);
    }
    case 'emoji':
      return `:${element.get('name').str()}:`;
    case 'user':
      return slackUser(element.get('user_id').str());
    case 'channel':
      return slackChannel(element.get('channel_id').str());
    case 'broadcast':
      return broadcasts.has(element.get('range').str()) ? everyone : '';
    default:
      // User groups, dates, files shared as canvases: nothing Zulip shows.
      return '';
  }
}

/** A rich_text block: its elements, a line each. */
export function richText(block: Payload): string {
  return children(block)
    .filter((piece) => piece.trim() !== '')
    .join('\n');
}
