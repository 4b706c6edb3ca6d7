// fast-check arbitraries of parameter values that break naive code: values that fit a schema's
// type but not its sense (unicode edges, 100,000-character strings, IDs of nothing or of another
// realm, huge lists) and values that do not fit at all (other types, malformed JSON, nesting
// 100,000 deep, number spellings, bytes that are not UTF-8).
import fc from 'fast-check';
import { asObjectSchema, type PropertySchema } from './routeTable.js';
import { vocabulary, type Targets } from './targets.js';
import { nestedArrays } from './nesting.js';
import type { WireValue } from './wire.js';

const edgeStrings = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202eevil\u202c',
  '\u200f\u05e9\u05dc\u05d5\u05dd\u200e',
  '\u200b',
  '\ufeff',
  '\uffff',
  'e\u0301\u0301\u0301\u0301',
  '\u{1f469}\u200d\u{1f469}\u200d\u{1f467}',
  '\r\n\t',
  '%00',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '@**all** #**Verona**',
  '{"a":1}',
  'null',
  '-1',
  '1e309',
  '__proto__',
  'constructor',
  'hasOwnProperty',
];

/** Long strings: just over Zulip's limits (60-character topics, 10,000-character messages) and
 * far over them, in characters of one to four UTF-8 bytes and NUL. */
const longString = fc
  .tuple(fc.constantFrom('x', '\u00e9', '\u{1f600}', '\u05e9', '\u0000'), fc.constantFrom(61, 1_001, 10_001, 100_000))
  .map(([unit, length]) => unit.repeat(length));

/** Any code points, surrogates included (fast-check's 'binary' unit costs a second to set up). */
const codePoints = fc.array(fc.integer({ min: 0, max: 0x10ffff }), { maxLength: 30 }).map((points) => String.fromCodePoint(...points));

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...edgeStrings) },
  { weight: 2, arbitrary: codePoints },
  { weight: 1, arbitrary: longString },
);

const edgeIntegers = [0, -1, 2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, -(2 ** 53), 999_999_999];

/** An ID: of something in the realm (most often), of another realm's thing, or of nothing. */
export const idValue = (targets: Targets): fc.Arbitrary<number> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...targets.ids) },
    { weight: 2, arbitrary: fc.constantFrom(...targets.foreignIds) },
    { weight: 1, arbitrary: fc.constantFrom(...edgeIntegers) },
  );

/** An ID, a small number (the codes of types, roles, policies), or any integer. */
const integerValue = (targets: Targets): fc.Arbitrary<number> =>
  fc.oneof({ weight: 3, arbitrary: idValue(targets) }, { weight: 1, arbitrary: fc.integer({ min: -1, max: 10 }) }, { weight: 1, arbitrary: fc.integer() });

/** Lists long enough to find work that grows faster than the list. */
const longList = fc.constantFrom(1_000, 10_000).map((length) => Array.from({ length }, (_, index) => index));

function typesOf(schema: PropertySchema): string[] {
  if (schema.type === undefined) return ['string'];
  return typeof schema.type === 'string' ? [schema.type] : [...schema.type];
}

function fittingType(type: string, schema: PropertySchema, targets: Targets, name: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'integer':
      return integerValue(targets);
    case 'number':
      return fc.oneof(integerValue(targets), fc.double());
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = fc.array(fitting(asObjectSchema(schema.items), targets, name), { minLength: Number(schema.minItems ?? 0), maxLength: Number(schema.maxItems ?? 4) });
      return fc.oneof({ weight: 4, arbitrary: items }, { weight: 1, arbitrary: longList });
    }
    case 'object': {
      if (!schema.properties) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      const fields = Object.fromEntries(Object.entries(schema.properties).map(([key, property]) => [key, fitting(asObjectSchema(property), targets, key)]));
      // Mostly with what the schema requires, so that what lies behind the outer checks is reached.
      return fc.oneof({ weight: 3, arbitrary: fc.record(fields, { requiredKeys: [...(schema.required ?? [])] }) }, { weight: 1, arbitrary: fc.record(fields, { requiredKeys: [] }) });
    }
    default: {
      const words = vocabulary[name];
      const known = fc.constantFrom(...(words ?? targets.names));
      return fc.oneof({ weight: 3, arbitrary: nastyString }, { weight: words ? 6 : 2, arbitrary: known });
    }
  }
}

/** A value of the schema's type (an enum's member, one of the API's words for a parameter of
 * that name, a name that exists, a nasty string), whatever its sense. */
export function fitting(schema: PropertySchema, targets: Targets, name = ''): fc.Arbitrary<unknown> {
  const alternatives = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (alternatives.length > 0) return fc.oneof(...alternatives.map((alternative) => fitting(asObjectSchema(alternative), targets, name)));
  if (Array.isArray(schema.enum)) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...(schema.enum as readonly unknown[])) }, { weight: 1, arbitrary: nastyString });
  return fc.oneof(...typesOf(schema).map((type) => fittingType(type, schema, targets, name)));
}

const malformedJson = ['[1,', '{"a":', "{'a': 1}", 'nul', '[1]]', '{"a":1}x', '[', '"unterminated', '\u0000', '[1,,2]', '{"a" 1}', 'NaN', '[Infinity]', '--1'];
const numberSpellings = ['1e3', '0x10', ' 7', '\uff17', '1_000', 'Infinity', '-0', '007', '1.5', '+1', '9'.repeat(400), 'true', 'None'];

/** JSON nested deeper than parsers and recursive code expect (1,025 is past Python's default;
 * 100,000 past any call stack): lists, and objects (six bytes a level, so not quite as deep). */
const deepNesting = fc.oneof(
  fc.constantFrom(1_025, 10_000, 100_000).map(nestedArrays),
  fc.constantFrom(1_025, 20_000).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
);

/** A JSON value's scalars, as they appear in its text: strings (keys left out), numbers, literals. */
const scalarTokens = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/g;

/** A value that fits, but with one of its scalars (a narrow's operand, an option's text…) swapped
 * for deep nesting: what checks of the outer shape let through. */
export const deepInside = (fitting: fc.Arbitrary<unknown>): fc.Arbitrary<WireValue> =>
  fc.tuple(fitting, deepNesting, fc.nat()).map(([value, deep, pick]) => {
    const text = JSON.stringify(value) ?? 'null';
    const leaves = [...text.matchAll(scalarTokens)].filter((token) => !/^\s*:/.test(text.slice(token.index + token[0].length)));
    const leaf = leaves[pick % Math.max(leaves.length, 1)];
    return { text: leaf === undefined ? deep : `${text.slice(0, leaf.index)}${deep}${text.slice(leaf.index + leaf[0].length)}` };
  });

/** Bytes that are not UTF-8: a lone surrogate's encoding, an overlong NUL, stray continuation bytes. */
const notUtf8 = fc.constantFrom(Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xc0, 0x80]), Buffer.from([0xff, 0xfe, 0x41]), Buffer.from([0x80]));

/** A value that does not fit a parameter: any JSON (mostly of another type), text that is not the
 * JSON or number it should be, deep nesting, bytes that are not text. */
export const unfitting: fc.Arbitrary<WireValue> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((json) => ({ json })) },
  { weight: 2, arbitrary: fc.constantFrom(...malformedJson, ...numberSpellings).map((text) => ({ text })) },
  { weight: 1, arbitrary: deepNesting.map((text) => ({ text })) },
  { weight: 1, arbitrary: notUtf8.map((bytes) => ({ bytes })) },
);
