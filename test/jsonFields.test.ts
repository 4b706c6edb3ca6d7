// JSON written in pieces (realm/jsonFields.ts): whatever the size and shape of an answer, and
// however it is cut into pieces (long arrays in slices, long objects member by member, a single
// long string whole), the pieces joined are exactly JSON.stringify's text, and none is longer than
// a piece but a value that cannot be cut.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonArray, JsonWriter, membersOf, PIECE } from '../src/realm/jsonFields.js';

const json = suite('JSON in pieces');

const text = (pieces: readonly string[]): string => pieces.join('');
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

json('members come without braces, in one piece while short and in pieces no longer than PIECE when long', () => {
  assert.equal(membersOf({ a: 1, b: [2], skipped: undefined }), ['"a":1,"b":[2]']);
  assert.equal(membersOf({}), []);
  const longValues = [
    { messages: Array.from({ length: 100 }, (_, id) => message(id, 1000)), anchor: 1 },
    { users: Array.from({ length: 5000 }, (_, id) => ({ id, name: `user ${id}`, active: true })), more: 'x'.repeat(50_000), after: 'y'.repeat(50_000) },
    { held: new JsonArray(Array.from({ length: 3000 }, (_, id) => JSON.stringify(message(id, 100)))) },
  ];
  for (const value of longValues) {
    const pieces = membersOf(value);
    assert.ok(pieces.length > 1, 'a long answer comes in pieces');
    assert.ok(pieces.every((piece) => piece.length <= PIECE), `pieces of ${pieces.map((piece) => piece.length).join(', ')} characters`);
    same(`{${text(pieces)}}`, JSON.stringify(value));
  }
});

json.run();
