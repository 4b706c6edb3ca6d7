// JSON written as bytes in pieces (realm/jsonFields.ts): whatever the size and shape of an answer,
// and however it is cut into pieces (long arrays in slices, long objects member by member, a single
// long string whole), the bytes a client gets are exactly JSON.stringify's.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonArray, JsonWriter, membersOf, type Json } from '../src/realm/jsonFields.js';

const json = suite('JSON as bytes');

const text = (json: Json): string => (typeof json === 'string' ? json : Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString());
const written = (value: unknown): string => {
  const writer = new JsonWriter();
  writer.value(value);
  return text(writer.result());
};

/** Asserts two long texts are equal, naming where they first differ (uvu's diff of texts this
 * long would take minutes). */
const same = (actual: string, expected: string, message?: string): void => {
  let at = 0;
  while (at < actual.length && actual[at] === expected[at]) at++;
  assert.ok(actual === expected, `${message ?? 'the JSON differs'}: at ${at} of ${expected.length} characters, ${JSON.stringify(actual.slice(at, at + 40))} for ${JSON.stringify(expected.slice(at, at + 40))}`);
};

/** A message-like object of about `size` characters of JSON, with text outside Latin-1. */
const message = (id: number, size: number) => ({ id, content: `<p>${'ünïcødé ✓ '.repeat(Math.ceil(size / 11))}</p>`, flags: ['read'], reactions: [] });

json('short and long values come out exactly as JSON.stringify writes them', () => {
  const cases: unknown[] = [
    { a: 1, b: 'x', c: null, d: [1, 2, 3] },
    Array.from({ length: 200 }, (_, id) => message(id, 1000)),
    { messages: Array.from({ length: 120 }, (_, id) => message(id, 900)), anchor: 5, found_anchor: true },
    Array.from({ length: 40_000 }, (_, id) => id * 7919),
    [message(1, 200_000), message(2, 10), message(3, 150_000)],
    { nested: { deeper: Array.from({ length: 100 }, (_, id) => ({ id, list: Array.from({ length: 100 }, (_, n) => `item ${n}`) })) } },
    // Elements far longer than the first (the slices' length guessed from it is made again, smaller).
    [1, ...Array.from({ length: 300 }, (_, id) => message(id, 2000))],
    // Many members (written one by one), some long, some left out.
    Object.fromEntries(Array.from({ length: 3000 }, (_, id) => [`user ${id}`, id % 7 === 0 ? undefined : id % 500 === 1 ? message(id, 70_000) : { active: id % 2 === 0, at: id * 1000 }])),
    // A short first element, then ones each too long for a piece.
    [1, ...Array.from({ length: 40 }, (_, id) => message(id, 70_000))],
    // A long first element, then short ones (slices grow again after it).
    [message(0, 40_000), ...Array.from({ length: 1000 }, (_, id) => message(id + 1, 500))],
    // Slices of members all left out, beside a long one.
    { ...Object.fromEntries(Array.from({ length: 2000 }, (_, id) => [`gone ${id}`, undefined])), long: message(1, 70_000), after: Array.from({ length: 2000 }, () => undefined) },
    [],
    {},
    [[]],
  ];
  for (const value of cases) same(written(value), JSON.stringify(value));
});

json('what JSON.stringify leaves out or writes as null stays so in a long value', () => {
  const long = 'x'.repeat(70_000);
  const value = {
    skipped: undefined,
    alsoSkipped: () => 1,
    kept: long,
    list: [undefined, () => 2, long, null, new Date(0), { toJSON: () => 'own' }],
    dated: { toJSON: () => ({ long }) },
    tail: 1,
  };
  same(written(value), JSON.stringify(value));
  same(written([undefined]), '[null]');
});

json('an array held as its elements\' JSON is written as JSON.stringify writes the elements', () => {
  const users = Array.from({ length: 300 }, (_, id) => message(id, 400));
  const held = new JsonArray(users.map((user) => JSON.stringify(user)));
  const state = { realm_users: held, realm_non_active_users: new JsonArray([]), user_id: 7 };
  const expected = JSON.stringify({ realm_users: users, realm_non_active_users: [], user_id: 7 });
  same(JSON.stringify(state), expected, 'JSON.stringify reads it through toJSON');
  same(`{${text(membersOf(state))}}`, expected);
  same(written([held, 1]), JSON.stringify([users, 1]));
});

json('members come without braces, as text while short and as bytes when long', () => {
  assert.is(membersOf({ a: 1, b: [2], skipped: undefined }), '"a":1,"b":[2]');
  assert.is(membersOf({}), '');
  const long = { messages: Array.from({ length: 100 }, (_, id) => message(id, 1000)), anchor: 1 };
  const bytes = membersOf(long);
  assert.instance(bytes, Uint8Array);
  same(`{${text(bytes)}}`, JSON.stringify(long));
});

json('bytes are their own, not a view of a shared pool (a copy to another thread carries the whole buffer)', () => {
  const bytes = membersOf({ a: 'x'.repeat(40_000), b: 'y'.repeat(40_000) }) as Uint8Array;
  assert.instance(bytes, Uint8Array);
  assert.is(bytes.byteLength, bytes.buffer.byteLength);
});

json('answers made one after another, or one within another, keep their own bytes', () => {
  const first = { a: 'ä'.repeat(70_000) };
  const second = { b: 'b'.repeat(90_000) };
  const one = membersOf(first);
  const two = membersOf(second);
  same(`{${text(one)}}`, JSON.stringify(first), 'the first answer is not overwritten by the second');
  same(`{${text(two)}}`, JSON.stringify(second));
  // A value whose toJSON makes an answer of its own while the outer one is being written.
  const inner = { c: 'c'.repeat(80_000) };
  const outer = { before: 'x'.repeat(70_000), nested: { toJSON: () => text(membersOf(inner)) }, after: 'y'.repeat(70_000) };
  same(`{${text(membersOf(outer))}}`, JSON.stringify({ ...outer, nested: JSON.stringify(inner).slice(1, -1) }));
});

json('an answer that fails half-written leaves the next one whole', () => {
  const failing = { long: 'x'.repeat(70_000), bad: 1n };
  assert.throws(() => membersOf(failing), /BigInt/);
  const next = { long: 'z'.repeat(70_000), more: 'w'.repeat(70_000) };
  same(`{${text(membersOf(next))}}`, JSON.stringify(next));
});

json.run();
