// A realm on the realm thread, as the I/O thread's HTTP layer asks it: commands cross to the realm
// thread, but credentials and new messages' renderings are made here, from what the realm answered
// before, while the realm's memory generation (shared with the realm thread) has not moved.
import type { Principal } from '../auth/basic.js';
import type { Config } from '../config.js';
import { ContextRenderer, type Prerendered, type RenderOptions } from '../messages/render.js';
import { KEPT_PRINCIPALS } from '../organization/state.js';
import type { CommandName, InputOf, OutputOf } from '../realm/commands/index.js';
import type { FieldsCommand, RealmHandle } from '../realm/handle.js';
import type { JsonFields } from '../realm/jsonFields.js';

/** What asks the realm thread a command. */
export interface RealmCommands {
  command<N extends CommandName>(realmId: number, name: N, userId: number | null, input: InputOf<N>): Promise<OutputOf<N>>;
  /** A command whose answer the realm thread encodes as JSON fields. */
  commandFields<N extends FieldsCommand>(realmId: number, name: N, userId: number | null, input: InputOf<N>): Promise<JsonFields>;
}

/** A realm on the realm thread. */
export class ThreadRealm implements RealmHandle {
  /** Accepted credentials (an Authorization header, or an incoming webhook's key), with the memory
   * generation each was checked at. */
  private readonly principals = new Map<string, { generation: number; principal: Principal }>();
  /** A copy of the realm's rendering context, as of a memory generation. */
  private renderer: { generation: number; renderer: ContextRenderer } | undefined;
  private refreshing = false;

  constructor(
    readonly realm: { id: number; subdomain: string },
    private readonly thread: RealmCommands,
    /** The realm's memory generation, moved by the realm thread. */
    private readonly generation: Int32Array,
    private readonly config: Pick<Config, 'clock' | 'log'>,
  ) {}

  /** The copy of the context, and the options new content renders with, while the realm's memory
   * has not moved since the copy was taken (else undefined: a new copy is asked for, for the
   * messages after this one). The sender's translate_emoticons is taken to be off, its default:
   * the realm renders again for those who turned it on. */
  private current(): { renderer: ContextRenderer; options: RenderOptions } | undefined {
    const generation = Atomics.load(this.generation, 0);
    const copy = this.renderer;
    if (copy?.generation === generation) return { renderer: copy.renderer, options: { translateEmoticons: false, now: this.config.clock.now() } };
    this.refresh(generation);
    return undefined;
  }

  prerender(content: string): Prerendered | undefined {
    const current = this.current();
    return current && { content, version: current.renderer.version, translateEmoticons: current.options.translateEmoticons, ...current.renderer.render(content, current.options) };
  }

  renderVersion(): OutputOf<'render.version'> | undefined {
    const current = this.current();
    return current && { version: current.renderer.version, options: current.options };
  }

  private refresh(generation: number): void {
    if (this.refreshing) return;
    this.refreshing = true;
    this.thread
      .command(this.realm.id, 'render.context', null, {})
      .then((context) => {
        // The names and linkifiers are compiled again only when the context itself changed.
        const renderer = this.renderer?.renderer.version === context.version ? this.renderer.renderer : new ContextRenderer(context);
        this.renderer = { generation, renderer };
      })
      .catch((error: unknown) => this.config.log.error({ err: error, realm: this.realm.id }, 'the rendering context could not be read'))
      .finally(() => (this.refreshing = false));
  }

  /** The user of some credentials, as the realm answered for them (`check`) at the memory
   * generation that still stands. */
  private principal(credentials: string, check: () => Promise<Principal>): Principal | Promise<Principal> {
    // Read before asking: a change while the answer travels leaves it unkept.
    const generation = Atomics.load(this.generation, 0);
    const kept = this.principals.get(credentials);
    if (kept?.generation === generation) return kept.principal;
    return check().then((principal) => {
      if (!kept && this.principals.size >= KEPT_PRINCIPALS) this.principals.clear();
      this.principals.set(credentials, { generation, principal });
      return principal;
    });
  }

  /** Credentials at once while the realm's memory has not moved since they were checked; every
   * other command across threads, a promise. */
  answer<N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): OutputOf<N> | Promise<OutputOf<N>> {
    type Answer = OutputOf<N> | Promise<OutputOf<N>>;
    if (name === 'auth.basic') {
      const { authorization } = input as InputOf<'auth.basic'>;
      return this.principal(`basic ${authorization}`, () => this.thread.command(this.realm.id, 'auth.basic', null, { authorization })) as Answer;
    }
    if (name === 'auth.apiKey') {
      const { apiKey } = input as InputOf<'auth.apiKey'>;
      return this.principal(`key ${apiKey}`, () => this.thread.command(this.realm.id, 'auth.apiKey', null, { apiKey })) as Answer;
    }
    return this.thread.command(this.realm.id, name, userId, input);
  }

  ask<N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): Promise<OutputOf<N>> {
    return this.thread.command(this.realm.id, name, userId, input);
  }

  askFields<N extends FieldsCommand>(name: N, userId: number | null, input: InputOf<N>): Promise<JsonFields> {
    return this.thread.commandFields(this.realm.id, name, userId, input);
  }
}
