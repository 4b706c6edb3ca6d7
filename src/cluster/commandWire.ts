// Commands between nodes as they travel on `parley.realm.<id>.cmd` (msgpack values one after
// another, as `Gathered` sends them): a gateway's requests, numbered within their message, and the
// owner's answers to the message's reply subject, an answer too big for one NATS message in parts.
import { Packr } from 'msgpackr';
import type { Principal } from '../auth/basic.js';
import type { CommandRequest, Reply } from '../realm/replies.js';
import { errorReply } from '../realm/replies.js';
import type { Credentials } from './principals.js';

// Binary values are copied out: a message's bytes are not the reader's to keep.
export const codec = new Packr({ useRecords: false, structuredClone: true, copyBuffers: true });

/** Kept credentials a request was admitted on, and the principal they named then. */
export type Vouch = [credentials: Credentials, principal: Principal];

/** A request: its number within its message, the command, the kept credentials it was admitted on
 * (if any), the lease epoch of the owner its sender sent it to (null: not known), and how long its
 * sender waits for it (ms): one not started by then is not run. */
export type Asked = [index: number, request: CommandRequest, vouch: Vouch | null, epoch: number | null, waitsMs: number];

/** Why an owner did not run a request. `not run`: nobody did, so that it may be sent again (the
 * node it was sent to did not take the realm after all, or gave it up before the owner answering
 * took it). `sent elsewhere`: it was sent to an earlier owner, which may still run it, unaware;
 * its sender learns of the later one. */
export type NotRun = 'not run' | 'sent elsewhere';

/** An answer: the reply (or why none), whether the request's kept credentials no longer name its
 * principal (the reply then says why: their refusal now, or 503 to ask again), and the lease epoch
 * of the owner that answered. */
export type Answered = [index: number, reply: Reply | NotRun, unvouched: boolean, epoch: number];

/** One part of an answer too big for one NATS message (a register state, a long fetch): the
 * answer's msgpack bytes, cut, and the lease epoch of the owner that answered. */
export type AnswerPart = [index: number, part: number, parts: number, bytes: Uint8Array, epoch: number];

/** Room left in a NATS message for the framing of an answer's part. */
const PART_FRAMING_BYTES = 64;

const isArrayOf = (value: unknown, length: number): value is unknown[] => Array.isArray(value) && value.length === length;

const isVouch = (value: unknown): boolean => isArrayOf(value, 2) && isArrayOf(value[0], 2) && (value[0][0] === 'auth.basic' || value[0][0] === 'auth.apiKey');

export function isAsked(value: unknown): value is Asked {
  return isArrayOf(value, 5) && typeof value[0] === 'number' && Array.isArray(value[1]) && (value[2] === null || isVouch(value[2])) && (value[3] === null || typeof value[3] === 'number') && typeof value[4] === 'number';
}

export function isAnswered(value: unknown): value is Answered {
  return isArrayOf(value, 4) && typeof value[0] === 'number' && typeof value[2] === 'boolean' && typeof value[3] === 'number';
}

export function isPart(value: unknown): value is AnswerPart {
  return isArrayOf(value, 5) && typeof value[0] === 'number' && typeof value[1] === 'number' && typeof value[2] === 'number' && value[3] instanceof Uint8Array && typeof value[4] === 'number';
}

/** An answer as it travels: one value, or parts that each fit a message of `maxPayload` bytes. One
 * that cannot be encoded travels as a failure (the caller learns only that the command failed). */
export function framed(answered: Answered, maxPayload: number): Uint8Array[] {
  let bytes: Uint8Array;
  try {
    bytes = codec.pack(answered);
  } catch {
    bytes = codec.pack([answered[0], errorReply(undefined), answered[2], answered[3]] satisfies Answered);
  }
  const room = maxPayload - PART_FRAMING_BYTES;
  if (bytes.length <= room) return [bytes];
  const parts = Math.ceil(bytes.length / room);
  return Array.from({ length: parts }, (_, part) => codec.pack([answered[0], part, parts, bytes.subarray(part * room, (part + 1) * room), answered[3]] satisfies AnswerPart));
}
