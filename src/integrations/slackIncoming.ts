// Slack-compatible incoming webhooks (Zulip's slack_incoming): what a tool that posts to Slack sends,
// posted as Zulip does — `blocks` (rich_text ones in slackRichText.ts) and legacy `attachments`
// rendered in Markdown, or else `text` (with its `icon_emoji`); mrkdwn converted (slackMrkdwn.ts).
// The body is JSON, or a form whose `payload` field holds it (the endpoint reads both). The topic
// is the URL's, or the payload's `channel` without its # or @, or "(no topic)"; `username` and
// `icon_url` name a Slack sender and are not used (the bot posts). A payload with nothing to show
// posts nothing.
import { entryOf, type Integration } from './integration.js';
import { PayloadError, type Payload } from './payload.js';
import { fromMrkdwn } from './slackMrkdwn.js';
import { richText } from './slackRichText.js';

/** A text object ({type: plain_text | mrkdwn, text}) as Markdown. */
function textObject(object: Payload): string {
  const type = object.get('type').str();
  if (type !== 'plain_text' && type !== 'mrkdwn') throw new PayloadError(`${object.path}.type`, 'plain_text or mrkdwn');
  const text = object.get('text').str();
  return type === 'mrkdwn' ? fromMrkdwn(text) : text;
}

/** An image (a block or an element) as a link to it, named by its alt text. */
const image = (element: Payload, alt = element.get('alt_text').str()): string => `[${alt}](${element.get('image_url').str()})`;

/** A block element: only images show; buttons, menus and other inputs do nothing here. */
const element = (item: Payload): string => (item.get('type').str() === 'image' ? image(item) : '');

/** Pieces of Markdown, blank ones left out, a paragraph each. */
const paragraphs = (pieces: string[]): string =>
  pieces
    .map((piece) => piece.trim())
    .filter((piece) => piece !== '')
    .join('\n\n');

/** Several fields: Slack lays them out in two columns, here a table without a header (a table's
 * cell can hold neither a line break nor a pipe). */
function fieldTable(fields: string[]): string {
  const cells = fields.map((field) => field.replace(/[\n|]/g, ' '));
  const rows: string[] = [];
  for (let index = 0; index < cells.length; index += 2) rows.push(`| ${cells[index]} | ${cells[index + 1] ?? ''} |`);
  return ['| | |', '|-|-|', ...rows].join('\n');
}

const blockRenderers: Readonly<Record<string, (block: Payload) => string>> = {
  section: (block) => {
    const fields = block.get('fields').optList().map(textObject);
    return paragraphs([
      block.get('text').exists ? textObject(block.get('text')) : '',
      block.get('accessory').exists ? element(block.get('accessory')) : '',
      fields.length === 1 ? fields[0]! : fields.length > 1 ? fieldTable(fields) : '',
    ]);
  },
  header: (block) => `## ${textObject(block.get('text'))}`,
  divider: () => '----',
  image: (block) => image(block, block.get('title').exists ? textObject(block.get('title')) : undefined),
  // Slack packs a context's pieces on one line; here each is its own paragraph.
  context: (block) => paragraphs(block.get('elements').optList().map((item) => (item.get('type').str() === 'image' ? image(item) : textObject(item)))),
  rich_text: richText,
};

/** A block as Markdown; the interactive ones (actions, input) and those Zulip leaves out render as
 * nothing. */
function block(item: Payload): string {
  const render = entryOf(blockRenderers, item.get('type').str());
  return render ? render(item) : '';
}

/** A Slack timestamp (seconds, an integer or a string such as "1655945306.000200") as a Zulip
 * global time. */
function globalTime(ts: Payload): string {
  const seconds = typeof ts.value === 'string' ? Number.parseFloat(ts.value) : ts.num();
  // Dates as far as JavaScript's (±8.64e15 ms).
  if (!Number.isFinite(seconds) || Math.abs(seconds) > 8.64e12) throw new PayloadError(ts.path, 'a timestamp');
  return `<time:${new Date(Math.trunc(seconds) * 1000).toISOString().replace('.000Z', '+00:00')}>`;
}

/** A legacy attachment: title (linked), pretext, text, fields, blocks, image, footer, time; its
 * colour bar has no counterpart. Any of these may be absent or null. */
function attachment(item: Payload): string {
  const title = item.get('title').optStr();
  const link = item.get('title_link').optStr();
  const fields = item
    .get('fields')
    .optList()
    .map((field) => {
      const name = field.get('title').optStr();
      const value = field.get('value').optStr();
      return name && value ? `**${name}**: ${fromMrkdwn(value)}` : name ? `**${name}**` : value ? fromMrkdwn(value) : '';
    })
    .filter((line) => line !== '');
  const imageUrl = item.get('image_url').optStr();
  return paragraphs([
    title ? (link ? `## [${title}](${link})` : `## ${title}`) : '',
    fromMrkdwn(item.get('pretext').optStr() ?? ''),
    fromMrkdwn(item.get('text').optStr() ?? ''),
    fields.join('\n'),
    ...item.get('blocks').optList().map(block),
    imageUrl ? `[](${imageUrl})` : '',
    item.get('footer').optStr() ?? '',
    item.get('ts').exists ? globalTime(item.get('ts')) : '',
  ]);
}

export const slackIncoming: Integration = {
  name: 'slack_incoming',
  displayName: 'Slack Incoming',
  category: 'custom',
  // Slack's clients look for `ok` in the answer.
  successAnswer: { ok: true },
  // Slack's payloads have no event types: every one is a message.
  eventType: () => 'message',
  events: {
    message: ({ payload }) => {
      let content = paragraphs([...payload.get('blocks').optList().map(block), ...payload.get('attachments').optList().map(attachment)]);
      // The plain text is Slack's fallback for blocks and attachments: shown only without them.
      const text = payload.get('text').optStr();
      if (content === '' && text) content = fromMrkdwn([payload.get('icon_emoji').optStr(), text].filter(Boolean).join(' ').trim());
      if (content === '') return null;
      const channel = payload.get('channel').optStr();
      return { topic: channel ? channel.replace(/^[#@]/, '') : '(no topic)', content };
    },
  },
};
