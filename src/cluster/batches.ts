// A realm's batch of emissions as it travels between nodes: a header (the owner, its lease epoch,
// the realm position of the first emission), then the emissions, as two msgpack values one after
// the other, so that the node that sent a batch reads no further than its header when NATS brings it
// back. A message event travels once, with only the fields in which its variants differ (the
// content as HTML or Markdown, the avatar with or without client_gravatar).
import { Packr } from 'msgpackr';
import type { MessageEvent } from '../events/catalogue.js';
import type { Emitted, ZulipEvent } from '../events/types.js';

// Plain msgpack: emissions are JSON-like trees (no cycles, no shared objects that must stay shared),
// so the structured-clone extension's tracking of every object is work for nothing.
const codec = new Packr({ useRecords: false });

export interface BatchHeader {
  node: string;
  epoch: number;
  /** The realm position of the first emission. */
  from: number;
}

/** What a message event's variants (apply_markdown × client_gravatar) change in its message. */
type VariantFields = Pick<MessageEvent['message'], 'content' | 'content_type' | 'avatar_url'>;

/** An emission as it travels: a message event with each variant's own fields. */
interface WireEmission extends Omit<Emitted, 'userIds' | 'forQueue'> {
  userIds: number[];
  variants?: [applyMarkdown: boolean, clientGravatar: boolean, fields: VariantFields][];
}

const settingsCombinations = [true, false].flatMap((applyMarkdown) => [true, false].map((clientGravatar) => ({ applyMarkdown, clientGravatar })));

function variantFields(event: ZulipEvent): VariantFields {
  if (event.type !== 'message') throw new Error(`only message events have variants, not ${event.type}`);
  const { content, content_type, avatar_url } = event.message;
  return { content, content_type, avatar_url };
}

function toWire({ userIds, forQueue, ...rest }: Emitted): WireEmission {
  const wire: WireEmission = { ...rest, userIds: [...userIds] };
  if (forQueue) wire.variants = settingsCombinations.map((settings) => [settings.applyMarkdown, settings.clientGravatar, variantFields(forQueue(settings))]);
  return wire;
}

function fromWire({ variants, ...rest }: WireEmission): Emitted {
  const base = rest.event;
  if (!variants || base.type !== 'message') return rest;
  // One shared event per variant, made when a queue first asks for it.
  const made = new Map<VariantFields, ZulipEvent>();
  return {
    ...rest,
    forQueue: (settings) => {
      const fields = variants.find(([markdown, gravatar]) => markdown === settings.applyMarkdown && gravatar === settings.clientGravatar)![2];
      let event = made.get(fields);
      if (!event) made.set(fields, (event = { ...base, message: { ...base.message, ...fields } }));
      return event;
    },
  };
}

export function encodeBatch(header: BatchHeader, emitted: readonly Emitted[]): Uint8Array {
  // The header is copied out before the emissions are packed into the codec's buffer.
  return Buffer.concat([Buffer.from(codec.pack(header)), codec.pack(emitted.map(toWire))]);
}

/** A batch as sent, or undefined for one that `ownNode` sent (its emissions left unread). */
export function decodeBatch(data: Uint8Array, ownNode: string): { header: BatchHeader; emissions: Emitted[] } | undefined {
  let header: BatchHeader | undefined;
  let emissions: WireEmission[] = [];
  codec.unpackMultiple(data, (value: unknown) => {
    if (header === undefined) {
      header = value as BatchHeader;
      return header.node !== ownNode;
    }
    emissions = value as WireEmission[];
    return false;
  });
  if (header === undefined || header.node === ownNode) return undefined;
  return { header, emissions: emissions.map(fromWire) };
}
