// Slack's mrkdwn in Zulip's Markdown, as Zulip converts it (zerver/data_import/slack_message_conversion.py):
// `<url|text>` links, `<@U…>` users, `<#C…|name>` channels, `<!here>`-style broadcasts, then
// *bold* → **bold**, ~strike~ → ~~strike~~, _italic_ → *italic*. Slack styles only whole words, so a
// marker counts only between spaces, punctuation or symbols (`*foo*a*bar*` stays as it is).
// (slack-message-parser on npm parses mrkdwn fully; the project does not depend on it yet.)

/** One style's pattern: the marker after the start, a space, punctuation or a symbol (not the
 * marker itself, a backtick, @, a backslash or a closing bracket), and before the end or the like. */
const style = (marker: string): RegExp => {
  const m = marker === '*' ? '\\*' : marker;
  const before = String.raw`(^|(?![${m}\x60@\\\p{Pf}\p{Pe}])[\p{P}\p{Zs}\p{S}])`;
  const after = String.raw`(?=$|(?![${m}\x60@\\\p{Pi}\p{Ps}])[\p{P}\p{Zs}\p{S}])`;
  return new RegExp(`${before}${m}([^${m}]+)${m}${after}`, 'gmu');
};

/** Slack's marker → Zulip's, in Zulip's order (bold before italic: Zulip's italic is Slack's bold). */
const styles: readonly [RegExp, string][] = [
  [style('*'), '**'],
  [style('~'), '~~'],
  [style('_'), '*'],
];

/** A Slack user, as Zulip's Slack webhook names one it cannot know (a mention of no one here). */
export const slackUser = (id: string): string => `@**Slack user ${id}**`;

/** A Slack channel, by its name where the message gives it. */
export const slackChannel = (id: string, name?: string): string => `#**${name ?? `Slack channel ${id}`}**`;

/** Slack's @here, @channel and @everyone: everyone in the Zulip channel. */
export const broadcasts: ReadonlySet<string> = new Set(['here', 'channel', 'everyone']);
export const everyone = '@**all**';

/** `<…>` sequences: a link, a mention, a broadcast, or another of Slack's escapes. */
function angle(_match: string, inner: string): string {
  const [target = '', label] = inner.split('|', 2) as [string, string | undefined];
  if (target.startsWith('@')) return slackUser(target.slice(1));
  if (target.startsWith('#')) return slackChannel(target.slice(1), label);
  if (target.startsWith('!') && broadcasts.has(target.slice(1))) return everyone;
  // A user group, a date and the like: their fallback text, where they have one.
  if (target.startsWith('!')) return label ?? target.slice(1);
  if (target.startsWith('mailto:')) return target;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return label ? `[${label}](${target})` : target;
  return `<${inner}>`;
}

/** A Slack mrkdwn text in Zulip's Markdown. */
export function fromMrkdwn(text: string): string {
  const linked = text.replace(/<([^<>\s][^<>]*)>/g, angle);
  return styles.reduce((converted, [pattern, marker]) => converted.replace(pattern, `$1${marker}$2${marker}`), linked);
}
