// Event fields written as JSON text (src/events/jsonText.ts): an unread event's message_details is
// built from shared parts into one buffer, and must read back as the object it stands for, whatever
// the IDs' lengths, the topics' characters and the size.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonText, jsonWithTexts, NumberKeyedJson } from '../src/events/jsonText.js';

test('number-keyed JSON reads back as the object: keys of every length, UTF-8 values, past the first buffer', () => {
  const values = [{ type: 'stream', stream_id: 7, topic: 'café ✔ 🎉' }, { type: 'private', user_ids: [3, 12] }, { mentioned: true }];
  const encoded = values.map((value) => Buffer.from(JSON.stringify(value)));
  const keys = [0, 9, 10, 99, 100, 4_294_967_295, Number.MAX_SAFE_INTEGER];
  // Enough entries to outgrow the first 4 KB several times.
  for (let key = 1_000; key < 1_400; key++) keys.push(key);
  const json = new NumberKeyedJson();
  const expected: Record<string, unknown> = {};
  keys.forEach((key, index) => {
    json.add(key, encoded[index % values.length]!);
    expected[String(key)] = values[index % values.length];
  });
  assert.equal(JSON.parse(json.json().toString()), expected);
  assert.is(new NumberKeyedJson().json().toString(), '{}');
});

test('a JsonText field is spliced into the event as it is; elsewhere it is its value', () => {
  const details = new JsonText<Record<string, unknown>>(Buffer.from('{"5":{"type":"private","user_ids":[2]}}'));
  const event = { type: 'update_message_flags', message_details: details, messages: [5] };
  assert.equal(JSON.parse(jsonWithTexts(event)), { type: 'update_message_flags', messages: [5], message_details: { 5: { type: 'private', user_ids: [2] } } });
  assert.equal(JSON.parse(JSON.stringify(event)), JSON.parse(jsonWithTexts(event)));
  assert.equal(JSON.parse(jsonWithTexts({ message_details: details })), { message_details: details.toJSON() });
});

test.run();
