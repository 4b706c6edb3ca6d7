// A realm's batch of emissions as it travels between nodes: a header (the owner's lease epoch, the
// realm position of the first emission) and the emissions (plain data, as emitted), one msgpack
// value. A NATS message holds one or more, one after another (a turn's, as `Gathered` sends them).
import { Packr } from 'msgpackr';
import type { HeardBatch } from '../events/queues.js';
import type { Emitted } from '../events/types.js';

// Plain msgpack: emissions are JSON-like trees (no cycles, no shared objects that must stay shared),
// so the structured-clone extension's tracking of every object is work for nothing.
const codec = new Packr({ useRecords: false });

export function encodeBatch(header: HeardBatch, emitted: readonly Emitted[]): Uint8Array {
  return codec.pack([header, emitted]);
}

export function decodeBatches(data: Uint8Array): { header: HeardBatch; emissions: Emitted[] }[] {
  return (codec.unpackMultiple(data) as [HeardBatch, Emitted[]][]).map(([header, emissions]) => ({ header, emissions }));
}
