// Rendering message content as a user of a realm sends it: the realm's names, linkifiers and URL,
// and the user's own settings. The realm renders with its state; a render worker renders with a
// copy of what rendering reads of it (a RenderContext, versioned), through the same code.
import { renderMessage } from '../markdown/index.js';
import type { Config } from '../config.js';
import { realmUrl } from '../organization/records.js';
import type { RealmView } from '../organization/state.js';
import type { UserRecord } from '../users/records.js';
import { userSetting } from '../users/settings.js';
import { compileLinkifier, type CompiledLinkifier } from './linkifiers.js';
import { activeUsersByName } from '../users/names.js';
import { mentionResolver, type NameView } from './mentions.js';
import { contentTerms } from './search.js';

export type RenderedMessage = ReturnType<typeof renderMessage>;

/** What rendering takes of the sender and the moment, besides the realm. */
export interface RenderOptions {
  translateEmoticons: boolean;
  /** The server's clock (ms): a `<time:…>` without a date takes it from this. */
  now: number;
}

/** The one rendering of message content, wherever it runs. */
const renderWith = (names: NameView, linkifiers: readonly CompiledLinkifier[], url: string, options: RenderOptions, content: string): RenderedMessage =>
  renderMessage(content, mentionResolver(names), { linkifiers, realmUrl: url, ...options });

export const renderOptionsOf = (user: UserRecord, config: Pick<Config, 'clock'>): RenderOptions => ({ translateEmoticons: userSetting(user, 'translate_emoticons') === true, now: config.clock.now() });

export function renderAs(state: RealmView, config: Pick<Config, 'externalHost' | 'mode' | 'clock'>, user: UserRecord, content: string): RenderedMessage {
  return renderWith(state, state.compiledLinkifiers(), realmUrl(state.realm, config), renderOptionsOf(user, config), content);
}

/** A rendering made off the realm's thread (a render worker), of some content as its sender would
 * have it, and the context version it was made with. */
export interface Prerendered extends RenderedWithTerms {
  /** What was rendered: the content as the client sent it. */
  content: string;
  version: number;
  translateEmoticons: boolean;
}

/** A rendering made off the realm's thread, with its words as the search index holds them
 * (search.ts's contentTerms), found on the same thread, so that the realm's thread does not. */
export interface RenderedWithTerms {
  rendered: RenderedMessage;
  contentTerms: string[];
}

/** New content rendered, and its words for the search index when found already (a prerendering's). */
export type Rendering = Pick<RenderedWithTerms, 'rendered'> & Partial<Pick<RenderedWithTerms, 'contentTerms'>>;

/** New content (a message or an edit) rendered as `sender` would have it: a render worker's
 * rendering if it is of this very content (not cut at the length limit) and was made with the
 * realm's context and the sender's options as they still are — then it is what rendering here
 * would give — else rendered here. */
export function renderFor(state: RealmView, config: Pick<Config, 'externalHost' | 'mode' | 'clock' | 'metrics'>, sender: UserRecord, content: string, made: Prerendered | undefined): Rendering {
  const valid = made !== undefined && made.content === content && made.version === state.renderVersion && made.translateEmoticons === renderOptionsOf(sender, config).translateEmoticons;
  config.metrics.rendered(valid ? 'worker' : 'realm');
  return valid ? { rendered: made.rendered, contentTerms: made.contentTerms } : { rendered: renderAs(state, config, sender, content) };
}

/** What rendering reads of a realm, as plain data a worker can hold: `version` is the realm's
 * renderVersion when it was taken (names, groups, channels, linkifiers and URL unchanged since). */
export interface RenderContext {
  version: number;
  realmUrl: string;
  /** In the realm's order: the first active user of a name is the one a mention of it means. */
  users: [id: number, fullName: string, isActive: boolean][];
  groups: [id: number, name: string, deactivated: boolean, isSystemGroup: boolean][];
  channels: [id: number, name: string][];
  /** In the realm's order. */
  linkifiers: [pattern: string, urlTemplate: string][];
}

export function renderContextOf(state: RealmView, config: Pick<Config, 'externalHost' | 'mode'>): RenderContext {
  return {
    version: state.renderVersion,
    realmUrl: realmUrl(state.realm, config),
    users: [...state.users.values()].map((user) => [user.id, user.fullName, user.isActive]),
    groups: [...state.groups.values()].map((group) => [group.id, group.name, group.deactivated, group.isSystemGroup]),
    channels: [...state.channels.values()].map((channel) => [channel.id, channel.name]),
    linkifiers: state.linkifiers().map((linkifier) => [linkifier.pattern, linkifier.urlTemplate]),
  };
}

/** A worker's renderer for one version of a realm's context: the names indexed as the realm's
 * state indexes them, the linkifiers compiled once. */
export class ContextRenderer implements NameView {
  readonly users = new Map<number, { id: number; fullName: string; isActive: boolean }>();
  readonly groups = new Map<number, { id: number; name: string; deactivated: boolean; isSystemGroup: boolean }>();
  private readonly activeByName: Map<string, { id: number; fullName: string; isActive: boolean }>;
  private readonly channelsByName = new Map<string, { id: number; name: string }>();
  private readonly linkifiers: CompiledLinkifier[];

  constructor(private readonly context: RenderContext) {
    for (const [id, fullName, isActive] of context.users) this.users.set(id, { id, fullName, isActive });
    this.activeByName = activeUsersByName(this.users.values());
    for (const [id, name, deactivated, isSystemGroup] of context.groups) this.groups.set(id, { id, name, deactivated, isSystemGroup });
    for (const [id, name] of context.channels) this.channelsByName.set(name.toLowerCase(), { id, name });
    this.linkifiers = context.linkifiers.map(([pattern, urlTemplate]) => compileLinkifier(pattern, urlTemplate));
  }

  get version(): number {
    return this.context.version;
  }

  activeUserNamed(lowercased: string) {
    return this.activeByName.get(lowercased);
  }

  channelByName(name: string) {
    return this.channelsByName.get(name.toLowerCase());
  }

  render(content: string, options: RenderOptions): RenderedWithTerms {
    const rendered = renderWith(this, this.linkifiers, this.context.realmUrl, options, content);
    return { rendered, contentTerms: contentTerms(rendered.html) };
  }
}
