// What a message's rendering holds (links, image previews, uploaded files) is recorded with the
// message for the has: narrows; a data directory from before format 8 gets it at open.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { open } from 'lmdb';
import { HasBit } from '../src/messages/records.js';
import { Store } from '../src/store/store.js';
import { message, removeStores, tempStorePath } from './helpers/stores.js';

test('a format 7 directory: each message is given what its rendering holds at open, the rest left as they were', async () => {
  const path = tempStorePath();
  const store = new Store(path);
  const rendered = {
    20: '<p>plain words</p>',
    21: '<p><a href="https://example.com">https://example.com</a></p>',
    22: '<p><a href="/user_uploads/1/ab/notes.txt">notes.txt</a></p>',
    23: '<p><a href="https://example.com/a.png">a.png</a></p><div class="message_inline_image"><a href="https://example.com/a.png"><img src="/thumbnail?url=x"></a></div>',
  };
  await store.write(() => {
    for (const [id, html] of Object.entries(rendered)) store.saveMessage({ ...message(Number(id), 'word'), renderedContent: html });
  });
  await store.close();
  // Format 7: messages without the record of what they hold.
  const env = open({ path, maxDbs: 64 });
  await env.openDB({ name: 'meta' }).put('storeFormat', 7);
  const messages = env.openDB<Record<string, unknown>, number>({ name: 'messages' });
  for (const id of [20, 21, 22, 23]) {
    const { has: _has, ...old } = messages.get(id)!;
    await messages.put(id, old);
  }
  assert.is(messages.get(21)!.has, undefined);
  await env.close();

  const reopened = new Store(path);
  assert.is(reopened.migratedFrom, 7);
  assert.equal(
    [20, 21, 22, 23].map((id) => reopened.messages.get(id)!.has),
    [undefined, HasBit.link, HasBit.link | HasBit.attachment, HasBit.link | HasBit.image],
  );
  assert.is(reopened.messages.get(23)!.renderedContent, rendered[23], 'the content is untouched');
  await reopened.close();
  removeStores(path);
});

test.run();
