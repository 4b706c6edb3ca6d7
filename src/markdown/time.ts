// Zulip's global times, `<time:…>`: each date chrono-node's strict parser reads completely (a
// time without zone is UTC, missing parts are midnight), or UNIX seconds; shown in each reader's
// zone. Anything else is a `timestamp-error`.
import * as chrono from 'chrono-node';
import type MarkdownIt from 'markdown-it';
import type StateInline from 'markdown-it/lib/rules_inline/state_inline.mjs';
import { systemClock } from '../clock.js';
import { envOf } from './env.js';
import { escapeText, pushHtml } from './html.js';

/** The instant a time names, or undefined. */
function parseTime(text: string, now: Date): Date | undefined {
  const [result, ...more] = chrono.strict.parse(text, { instant: now, timezone: 0 });
  if (result && more.length === 0 && result.index === 0 && result.text === text.trim()) {
    const get = (unit: chrono.Component, fallback: number): number => result.start.get(unit) ?? fallback;
    const known = (unit: chrono.Component): number | undefined => (result.start.isCertain(unit) ? (result.start.get(unit) ?? undefined) : undefined);
    const utc = Date.UTC(
      get('year', now.getUTCFullYear()),
      get('month', now.getUTCMonth() + 1) - 1,
      get('day', now.getUTCDate()),
      known('hour') ?? 0,
      known('minute') ?? 0,
      known('second') ?? 0,
      known('millisecond') ?? 0,
    );
    return new Date(utc - (known('timezoneOffset') ?? 0) * 60_000);
  }
  if (/^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/.test(text)) {
    const when = new Date(Number(text) * 1000);
    return Number.isNaN(when.getTime()) ? undefined : when;
  }
  return undefined;
}

/** Python's isoformat in UTC, as Zulip writes it: seconds, microseconds only when there are any. */
function isoUtc(when: Date): string {
  const iso = when.toISOString();
  return when.getUTCMilliseconds() === 0 ? iso.replace(/\.\d{3}Z$/, 'Z') : iso.replace(/Z$/, '000Z');
}

const syntax = /<time:([^>]*?)>/y;

function timeRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3c /* < */) return false;
  syntax.lastIndex = state.pos;
  const match = syntax.exec(state.src);
  if (!match || state.pos + match[0].length > state.posMax) return false;
  if (!silent) {
    const text = match[1]!;
    const when = parseTime(text, new Date(envOf(state).now ?? systemClock.now()));
    pushHtml(state, when ? `<time datetime="${isoUtc(when)}">${escapeText(text)}</time>` : `<span class="timestamp-error">Invalid time format: ${escapeText(text)}</span>`);
  }
  state.pos += match[0].length;
  return true;
}

export function timePlugin(md: MarkdownIt): void {
  md.inline.ruler.before('zulip_emphasis', 'zulip_time', timeRule);
}
