// The web client in a real browser (headless Chromium) against a real server: signing in, two
// people chatting live, unread counts, what one does to one's own messages.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { launchBrowser, signedIn, unreadCount, visit, waitForUnread } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const chat = suite<{ browser: Browser; server: TestServer }>('web client');

chat.before(async (context) => {
  context.browser = await launchBrowser();
  context.server = await startTestServer();
});

chat.after(async ({ browser, server }) => {
  await browser.close();
  await server.stop();
});

const channelId = async (server: TestServer, name: string): Promise<number> => (await (await server.as('iago@zulip.com')).get('/get_stream_id', { stream: name })).body.stream_id as number;

chat('signs in with e-mail and password, refuses a wrong one, and signs out', async ({ browser, server }) => {
  const { page, context, errors } = await visit(browser, server.baseUrl);
  await page.getByLabel('E-mail').fill('hamlet@zulip.com');
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').innerText(), /password|credentials/i);

  await page.getByLabel('Password').fill('parley-demo');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.locator('[role=status][data-status=live]').waitFor();
  assert.is(await page.locator('.top .me').innerText(), 'King Hamlet');
  // The key is the tab's: a reload keeps the session.
  await page.reload();
  await page.locator('[role=status][data-status=live]').waitFor();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to Parley' }).waitFor();
  assert.is(await page.evaluate('sessionStorage.getItem("parley.session")'), null);
  assert.equal(errors, []);
  await context.close();
});

chat('a message sent in one browser appears in another, live, and its unread count drops once read', async ({ browser, server }) => {
  const verona = await channelId(server, 'Verona');
  const hamlet = await signedIn(browser, server, 'hamlet@zulip.com');
  // Othello looks at his starred messages, where Verona's messages do not show.
  const othello = await signedIn(browser, server, 'othello@zulip.com', '#narrow/is/starred');
  const before = await unreadCount(othello.page, /^Verona/);

  await hamlet.page.getByRole('link', { name: /^Verona/ }).click();
  await hamlet.page.getByRole('textbox', { name: 'Topic' }).fill('from the browser');
  const compose = hamlet.page.getByRole('textbox', { name: 'Message', exact: true });
  await compose.fill('First line');
  // Shift+Enter is a new line; Enter sends.
  await compose.press('Shift+Enter');
  await compose.pressSequentially('second line');
  assert.is(await compose.inputValue(), 'First line\nsecond line');
  await compose.press('Enter');
  await hamlet.page.locator('.message .content', { hasText: 'second line' }).waitFor();
  assert.is(await compose.inputValue(), '');

  // Othello, elsewhere, sees Verona's count grow by the event alone.
  await waitForUnread(othello.page, /^Verona/, before + 1);
  await othello.page.getByRole('link', { name: /^Verona/ }).click();
  await othello.page.waitForURL(`**/#narrow/channel/${verona}`);
  const message = othello.page.locator('.message', { hasText: 'second line' });
  await message.waitFor();
  assert.match(await message.innerHTML(), /<p>First line<br>\s*second line<\/p>/);
  // Seen, so marked read: the count goes, and the server agrees.
  await waitForUnread(othello.page, /^Verona/, 0);
  const unread = await (await server.as('othello@zulip.com')).get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, narrow: [{ operator: 'channel', operand: verona }, { operator: 'is', operand: 'unread' }] });
  assert.equal(unread.body.messages, []);
  // Its topic is listed under the channel.
  await othello.page.getByRole('list', { name: 'Topics of Verona' }).getByRole('link', { name: /^from the browser/ }).waitFor();
  assert.equal([...hamlet.errors, ...othello.errors], []);
  await hamlet.context.close();
  await othello.context.close();
});

chat('stars, edits and deletes one\'s own message, and the other browser follows each change', async ({ browser, server }) => {
  const verona = await channelId(server, 'Verona');
  const topic = `#narrow/channel/${verona}/topic/edits`;
  const sent = await (await server.as('hamlet@zulip.com')).post('/messages', { type: 'stream', to: verona, topic: 'edits', content: 'Before the edit' });
  const id = sent.body.id as number;
  const hamlet = await signedIn(browser, server, 'hamlet@zulip.com', topic);
  const othello = await signedIn(browser, server, 'othello@zulip.com', topic);
  const mine = hamlet.page.locator(`.message[data-id="${id}"]`);
  const theirs = othello.page.locator(`.message[data-id="${id}"]`);

  await mine.getByRole('button', { name: 'Star' }).click();
  await mine.getByRole('button', { name: 'Unstar' }).waitFor();
  await hamlet.page.getByRole('link', { name: /^Starred/ }).click();
  await hamlet.page.locator(`.message[data-id="${id}"]`).waitFor();
  await hamlet.page.goBack();

  await mine.getByRole('button', { name: 'Edit' }).click();
  const editor = mine.getByRole('textbox', { name: 'Edit message' });
  assert.is(await editor.inputValue(), 'Before the edit');
  await editor.fill('After the **edit**');
  await editor.press('Enter');
  await theirs.locator('.content strong', { hasText: 'edit' }).waitFor();
  await mine.locator('.content strong', { hasText: 'edit' }).waitFor();
  // Othello may not edit or delete Hamlet\'s message: he is not offered to.
  assert.is(await theirs.getByRole('button', { name: 'Edit' }).count(), 0);

  await mine.getByRole('button', { name: 'Delete' }).click();
  await mine.getByRole('button', { name: 'Confirm delete' }).click();
  await theirs.waitFor({ state: 'detached' });
  await mine.waitFor({ state: 'detached' });
  assert.is((await (await server.as('hamlet@zulip.com')).get(`/messages/${id}`)).status, 400);
  assert.equal([...hamlet.errors, ...othello.errors], []);
  await hamlet.context.close();
  await othello.context.close();
});

chat('a direct message from the user list reaches the other, whose sidebar lists the conversation, unread until seen', async ({ browser, server }) => {
  const hamlet = await signedIn(browser, server, 'hamlet@zulip.com');
  const cordelia = await signedIn(browser, server, 'cordelia@zulip.com', '#narrow/is/starred');
  await hamlet.page.getByRole('complementary', { name: 'People' }).getByRole('link', { name: /^Cordelia/ }).click();
  await hamlet.page.getByRole('heading', { name: /^Direct messages with Cordelia/ }).waitFor();
  const compose = hamlet.page.getByRole('textbox', { name: 'Message', exact: true });
  await compose.fill('Just between us');
  await compose.press('Enter');
  await hamlet.page.locator('.message .content', { hasText: 'Just between us' }).waitFor();

  await waitForUnread(cordelia.page, /^King Hamlet/, 1);
  await cordelia.page.getByRole('navigation', { name: 'Narrows' }).getByRole('link', { name: /^King Hamlet/ }).click();
  await cordelia.page.locator('.message .content', { hasText: 'Just between us' }).waitFor();
  await waitForUnread(cordelia.page, /^King Hamlet/, 0);
  assert.equal([...hamlet.errors, ...cordelia.errors], []);
  await hamlet.context.close();
  await cordelia.context.close();
});

chat('reactions, typing notices and presence reach the other browser', async ({ browser, server }) => {
  const verona = await channelId(server, 'Verona');
  const topic = `#narrow/channel/${verona}/topic/reactions`;
  const sent = await (await server.as('othello@zulip.com')).post('/messages', { type: 'stream', to: verona, topic: 'reactions', content: 'React to me' });
  const id = sent.body.id as number;
  const othello = await signedIn(browser, server, 'othello@zulip.com', topic);
  const hamlet = await signedIn(browser, server, 'hamlet@zulip.com', topic);
  // Each sees the other online: presence is reported at sign-in and announced.
  await othello.page.locator(`.users [data-user-id] a[aria-label="King Hamlet, active"]`).waitFor();
  await hamlet.page.locator(`.users [data-user-id] a[aria-label^="Othello, the Moor of Venice, active"]`).waitFor();

  await hamlet.page.locator(`.message[data-id="${id}"]`).getByRole('button', { name: 'React with thumbs up' }).click();
  const reaction = othello.page.locator(`.message[data-id="${id}"] .reaction`);
  await reaction.waitFor();
  assert.is(await reaction.getAttribute('aria-label'), 'thumbs_up by King Hamlet');
  assert.is((await reaction.innerText()).trim(), '👍 1');
  // Othello joins in (one button, two people), then takes his back.
  await reaction.click();
  await othello.page.locator(`.message[data-id="${id}"] .reaction[aria-pressed="true"]`, { hasText: '2' }).waitFor();
  await reaction.click();
  await othello.page.locator(`.message[data-id="${id}"] .reaction[aria-pressed="false"]`, { hasText: '1' }).waitFor();

  await hamlet.page.getByRole('textbox', { name: 'Message', exact: true }).pressSequentially('I am wri');
  await othello.page.locator('.typing', { hasText: 'King Hamlet is typing…' }).waitFor();
  await hamlet.page.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
  await othello.page.locator('.typing', { hasText: /^$/ }).waitFor();
  assert.equal([...hamlet.errors, ...othello.errors], []);
  await hamlet.context.close();
  await othello.context.close();
});

chat('the keyboard alone moves through the messages and reaches their buttons', async ({ browser, server }) => {
  const verona = await channelId(server, 'Verona');
  const hamlet = await server.as('hamlet@zulip.com');
  const ids: number[] = [];
  for (const content of ['Keys one', 'Keys two', 'Keys three']) ids.push((await hamlet.post('/messages', { type: 'stream', to: verona, topic: 'keys', content })).body.id as number);
  const othello = await signedIn(browser, server, 'othello@zulip.com', `#narrow/channel/${verona}/topic/keys`);
  const { page } = othello;
  await page.locator(`.message[data-id="${ids[2]}"]`).waitFor();
  const focused = () => page.evaluate('document.activeElement?.dataset?.id ?? document.activeElement?.getAttribute("aria-label")');
  await page.getByRole('log', { name: 'Messages' }).focus();
  await page.keyboard.press('ArrowUp');
  assert.is(await focused(), String(ids[2]));
  await page.keyboard.press('ArrowUp');
  assert.is(await focused(), String(ids[1]));
  await page.keyboard.press('ArrowDown');
  assert.is(await focused(), String(ids[2]));
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Tab');
  assert.is(await focused(), 'Star');
  await page.keyboard.press('Enter');
  await page.locator(`.message[data-id="${ids[1]}"]`).getByRole('button', { name: 'Unstar' }).waitFor();
  assert.equal(othello.errors, []);
  await othello.context.close();
});

chat.run();
