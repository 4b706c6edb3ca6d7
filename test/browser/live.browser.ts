// The web client over time: it reconnects after the server restarts and resumes its queue, and it
// renders a long channel quickly (measured and printed, never asserted).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startParley } from '../../src/app.js';
import { launchBrowser, signedIn, visit } from '../helpers/browser.js';
import { ApiClient } from '../helpers/client.js';
import { startFrontProxy } from '../helpers/frontProxy.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const live = suite<{ browser: Browser }>('web client, live');

live.before(async (context) => {
  context.browser = await launchBrowser();
});
live.after(async ({ browser }) => browser.close());

const channelId = async (server: TestServer, name: string): Promise<number> => (await (await server.as('iago@zulip.com')).get('/get_stream_id', { stream: name })).body.stream_id as number;

live('after the server restarts, the page reconnects, resumes its queue and shows what was sent meanwhile', async ({ browser }) => {
  const server = await startTestServer();
  const front = await startFrontProxy(server.parley.http.port);
  const verona = await channelId(server, 'Verona');
  const hamlet = await signedIn(browser, { baseUrl: front.url }, 'hamlet@zulip.com', `#narrow/channel/${verona}/topic/restart`);
  const othello = await server.as('othello@zulip.com');
  const registers: string[] = [];
  hamlet.page.on('request', (request) => {
    if (request.url().endsWith('/api/v1/register')) registers.push(request.url());
  });
  await server.parley.close();
  await hamlet.page.locator('[role=status][data-status=connecting]').waitFor();

  // The same data directory, behind the same address.
  const again = await startParley(server.config);
  front.target = again.http.port;
  try {
    const othelloAgain = new ApiClient(`http://127.0.0.1:${again.http.port}`, othello.credentials);
    await othelloAgain.post('/messages', { type: 'stream', to: verona, topic: 'restart', content: 'Sent after the restart' });
    await hamlet.page.locator('[role=status][data-status=live]').waitFor({ timeout: 15_000 });
    await hamlet.page.locator('.message .content', { hasText: 'Sent after the restart' }).waitFor();
    // Sending works on the new server too, and each message shows once.
    const compose = hamlet.page.getByRole('textbox', { name: 'Message', exact: true });
    await compose.fill('And a reply');
    await compose.press('Enter');
    await hamlet.page.locator('.message .content', { hasText: 'And a reply' }).waitFor();
    assert.is(await hamlet.page.locator('.message .content', { hasText: 'Sent after the restart' }).count(), 1);
    // The queue survived the graceful restart: the page resumed it rather than registering anew.
    assert.equal(registers, []);
    assert.equal(hamlet.errors, []);
  } finally {
    await hamlet.context.close();
    await front.close();
    await again.close();
    await server.stop().catch(() => undefined);
  }
});

live('a lost queue is registered anew and the page stays live; a key that stopped working ends the session', async ({ browser }) => {
  const server = await startTestServer();
  try {
    const verona = await channelId(server, 'Verona');
    const hamlet = await visit(browser, server.baseUrl, `#narrow/channel/${verona}/topic/lost`);
    const registration = () => hamlet.page.waitForResponse((response) => response.url().endsWith('/api/v1/register')).then(async (response) => ({ status: response.status(), body: (await response.json()) as { queue_id?: string } }));
    const registering = registration();
    await hamlet.page.getByRole('button', { name: 'hamlet@zulip.com' }).click();
    const first = await registering;
    await hamlet.page.locator('[role=status][data-status=live]').waitFor();

    // The queue is deleted (as after a long absence): the socket closes with 4004, the page registers again.
    const api = await server.as('hamlet@zulip.com');
    const again = registration();
    assert.is((await api.delete('/events', { queue_id: first.body.queue_id })).status, 200);
    const second = await again;
    assert.is(second.status, 200);
    assert.is.not(second.body.queue_id, first.body.queue_id);
    await hamlet.page.locator('[role=status][data-status=live]').waitFor();
    await (await server.as('othello@zulip.com')).post('/messages', { type: 'stream', to: verona, topic: 'lost', content: 'Heard on the new queue' });
    await hamlet.page.locator('.message .content', { hasText: 'Heard on the new queue' }).waitFor();

    // A new key makes the page's stop working: registering again is refused, and the page says so.
    const newKey = String((await api.post('/users/me/api_key/regenerate')).body.api_key);
    const refused = registration();
    assert.is((await api.withCredentials({ email: 'hamlet@zulip.com', apiKey: newKey }).delete('/events', { queue_id: second.body.queue_id })).status, 200);
    assert.is((await refused).status, 401);
    await hamlet.page.getByRole('alert').filter({ hasText: 'Your session has ended' }).waitFor();
    assert.equal(hamlet.errors, []);
    await hamlet.context.close();
  } finally {
    await server.stop();
  }
});

live('where WebSockets cannot connect, the page long-polls its queue instead and stays live', async ({ browser }) => {
  const server = await startTestServer();
  try {
    const verona = await channelId(server, 'Verona');
    const context = await browser.newContext();
    // Every WebSocket the page opens is refused before it reaches the server.
    await context.routeWebSocket(/\/api\/v1\/events\/socket/, (socket) => socket.close({ code: 1006 }));
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server.baseUrl}/#narrow/channel/${verona}/topic/polling`);
    await page.getByRole('button', { name: 'hamlet@zulip.com' }).click();
    await page.locator('[role=status][data-status=polling]').waitFor({ timeout: 15_000 });
    await (await server.as('othello@zulip.com')).post('/messages', { type: 'stream', to: verona, topic: 'polling', content: 'Heard by long-poll' });
    await page.locator('.message .content', { hasText: 'Heard by long-poll' }).waitFor();
    assert.equal(errors, []);
    await context.close();
  } finally {
    await server.stop();
  }
});

/** Milliseconds from the page's address naming a narrow to `count` messages on screen (the page's own clock). */
async function timeToRender(page: Page, hash: string, count: number): Promise<number> {
  return page.evaluate(`(async () => {
    const start = performance.now();
    location.hash = ${JSON.stringify(hash)};
    await new Promise((resolve) => {
      const check = () => (document.querySelectorAll('.message').length >= ${count} ? requestAnimationFrame(resolve) : requestAnimationFrame(check));
      check();
    });
    return performance.now() - start;
  })()`);
}

live('a channel of 1,000 messages: time to first render, and to render all 1,000 (printed)', async ({ browser }) => {
  const server = await startTestServer();
  try {
    const iago = await server.as('iago@zulip.com');
    await iago.post('/users/me/subscriptions', { subscriptions: [{ name: 'Bulk' }], principals: ['hamlet@zulip.com', 'iago@zulip.com'] });
    const bulk = await channelId(server, 'Bulk');
    for (let batch = 0; batch < 100; batch++) {
      await Promise.all(Array.from({ length: 10 }, (_, index) => iago.post('/messages', { type: 'stream', to: bulk, topic: `topic ${batch % 7}`, content: `Message **${batch * 10 + index}** with a [link](https://example.com) and \`code\`` })));
    }
    const hamlet = await signedIn(browser, server, 'hamlet@zulip.com', '#narrow/is/starred');
    const first = await timeToRender(hamlet.page, `#narrow/channel/${bulk}`, 100);

    // Scroll back to the beginning: ten more fetches of 100.
    await hamlet.page.evaluate(`(async () => {
      const list = document.querySelector('.message-list');
      while (!document.querySelector('.history-start')) {
        list.scrollTop = 0;
        list.dispatchEvent(new Event('scroll'));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })()`);
    assert.is(await hamlet.page.locator('.message').count(), 1000);
    await hamlet.page.getByRole('link', { name: /^Starred/ }).click();
    await hamlet.page.locator('.message').first().waitFor({ state: 'detached' });
    const all = await timeToRender(hamlet.page, `#narrow/channel/${bulk}`, 1000);
    console.log(`  render: first render of a 1,000-message channel (newest 100, fetch included) ${first.toFixed(0)} ms; all 1,000 rendered from memory ${all.toFixed(0)} ms`);
    assert.equal(hamlet.errors, []);
    await hamlet.context.close();
  } finally {
    await server.stop();
  }
});

live.run();
