// What an outgoing-webhook bot's service answers becomes: a reply, silence, or a failure told in
// the conversation and to the bot's owner. An answer nested deeper than JSON.stringify goes is a
// failure of the answer, not of the delivery's settlement.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readAnswer } from '../src/integrations/outgoing.js';
import { nestedArrays } from './helpers/nesting.js';
import { ServiceInterface } from '../src/users/records.js';

const service = { baseUrl: 'http://127.0.0.1:1/bot', interface: ServiceInterface.zulip, token: 't' };

test('an answer is the reply, a non-string content is shown as JSON, and an empty one is silence', () => {
  assert.equal(readAnswer(service, 200, '{"content": "hi"}'), { kind: 'reply', content: 'hi' });
  assert.equal(readAnswer(service, 200, '{"content": {"a": [1]}}'), { kind: 'reply', content: '{"a":[1]}' });
  assert.equal(readAnswer(service, 200, ''), { kind: 'silent' });
});

test('content nested 500,000 deep is an invalid answer, not a thrown error', () => {
  const depth = 500_000;
  const answer = readAnswer(service, 200, `{"content": ${nestedArrays(depth)}}`);
  assert.is(answer.kind, 'failure');
  assert.is(answer.kind === 'failure' && answer.conversation, 'Invalid response format');
});

test.run();
