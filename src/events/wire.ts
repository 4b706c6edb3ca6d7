// An emission as it travels to queues elsewhere (other nodes of a cluster; the I/O thread, from the
// realm thread): plain data. A message event travels once, with only the fields in which its
// variants differ (the content as HTML or Markdown, the avatar with or without client_gravatar).
import type { MessageEvent } from './catalogue.js';
import type { Emitted, ZulipEvent } from './types.js';

/** What a message event's variants (apply_markdown × client_gravatar) change in its message. */
type VariantFields = Pick<MessageEvent['message'], 'content' | 'content_type' | 'avatar_url'>;

/** An emission as it travels: a message event with each variant's own fields. */
export interface WireEmission extends Omit<Emitted, 'userIds' | 'forQueue'> {
  userIds: number[];
  variants?: [applyMarkdown: boolean, clientGravatar: boolean, fields: VariantFields][];
}

const settingsCombinations = [true, false].flatMap((applyMarkdown) => [true, false].map((clientGravatar) => ({ applyMarkdown, clientGravatar })));

function variantFields(event: ZulipEvent): VariantFields {
  if (event.type !== 'message') throw new Error(`only message events have variants, not ${event.type}`);
  const { content, content_type, avatar_url } = event.message;
  return { content, content_type, avatar_url };
}

const sameFields = (a: VariantFields, b: VariantFields): boolean => a.content === b.content && a.content_type === b.content_type && a.avatar_url === b.avatar_url;

/** A variant the emission's own event already is (its own, and every other that differs from it in
 * nothing) does not travel: the other side answers such a queue with the event itself. */
export function toWire({ userIds, forQueue, ...rest }: Emitted): WireEmission {
  const wire: WireEmission = { ...rest, userIds: [...userIds] };
  if (forQueue) {
    const own = variantFields(rest.event);
    wire.variants = settingsCombinations.flatMap((settings) => {
      const fields = variantFields(forQueue(settings));
      return sameFields(fields, own) ? [] : [[settings.applyMarkdown, settings.clientGravatar, fields] as [boolean, boolean, VariantFields]];
    });
  }
  return wire;
}

export function fromWire({ variants, ...rest }: WireEmission): Emitted {
  const base = rest.event;
  if (!variants || base.type !== 'message') return rest;
  // One shared event per variant, made when a queue first asks for it.
  const made = new Map<VariantFields, ZulipEvent>();
  return {
    ...rest,
    forQueue: (settings) => {
      const fields = variants.find(([markdown, gravatar]) => markdown === settings.applyMarkdown && gravatar === settings.clientGravatar)?.[2];
      if (!fields) return base;
      let event = made.get(fields);
      if (!event) made.set(fields, (event = { ...base, message: { ...base.message, ...fields } }));
      return event;
    },
  };
}
