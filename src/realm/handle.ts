// What the HTTP layer needs of a realm: its ID and subdomain, and a way to ask it a command. A
// standalone server answers with the realm's actor; in a cluster the realm may be owned by another
// node, which answers through NATS.
import type { RealmRecord } from '../organization/records.js';
import type { Prerendered } from '../messages/render.js';
import type { CommandName, InputOf, OutputOf } from './commands/index.js';
import type { JsonFields } from './jsonFields.js';

/** The commands whose answer goes to the client as it is, which `askFields` answers as JSON fields. */
export const FIELDS_COMMANDS = ['messages.window', 'messages.byIds', 'users.list', 'subscriptions.list'] as const satisfies readonly CommandName[];
export type FieldsCommand = (typeof FIELDS_COMMANDS)[number];
export const isFieldsCommand = (name: CommandName): name is FieldsCommand => (FIELDS_COMMANDS as readonly CommandName[]).includes(name);

export interface RealmHandle {
  readonly realm: Readonly<Pick<RealmRecord, 'id' | 'subdomain'>>;
  ask<N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): Promise<OutputOf<N>>;
  /** As `ask`, but a command the realm can run at once answers (or throws) without a promise (the
   * hot paths: credentials, and reads while no write is under way). */
  answer<N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): OutputOf<N> | Promise<OutputOf<N>>;
  /** As `ask`, for an answer that goes to the client as it is: encoded where the realm runs. */
  askFields<N extends FieldsCommand>(name: N, userId: number | null, input: InputOf<N>): Promise<JsonFields>;
  /** New content rendered on the calling thread, as its sender would have it, by a realm that runs
   * on a thread of its own, when its copy of the realm's rendering context is current (else
   * undefined, and the realm renders). */
  prerender?(content: string): Prerendered | undefined;
  /** The version of the calling thread's copy of the realm's rendering context, with the options
   * `prerender` renders with, under the same conditions: content rendered on a worker with them
   * asks the realm nothing first (`render.version` would answer the sender's own options: a
   * sender with translate_emoticons on has the realm render again, as for `prerender`). */
  renderVersion?(): OutputOf<'render.version'> | undefined;
}

/** Finds the realm a request's Host header names. */
export interface RealmDirectory {
  forHost(host: string): RealmHandle | undefined;
}
