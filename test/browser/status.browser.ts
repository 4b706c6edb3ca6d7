// The operator's status page in a real browser, on the metrics port: figures, the realms, and
// charts that fill as it refreshes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { launchBrowser, signedIn } from '../helpers/browser.js';
import { startTestServer } from '../helpers/server.js';

test('the status page shows the realms, the users online and live charts', async () => {
  const server = await startTestServer({ metricsListen: { host: '127.0.0.1', port: 0 } });
  const browser = await launchBrowser();
  try {
    const hamlet = await signedIn(browser, server, 'hamlet@zulip.com');
    const page = await (await browser.newContext()).newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${server.parley.metricsPort}/status`);
    await page.getByRole('heading', { name: 'Parley server status' }).waitFor();
    const realmId = server.parley.realms.forHost('')!.realm.id;
    const row = page.locator(`tr[data-realm-id="${realmId}"]`);
    await row.waitFor();
    assert.equal(await row.locator('td').allInnerTexts(), [String(realmId), '(root)', 'yes', '1']);
    assert.is(await page.locator('[data-figure="Open sockets"] dd').innerText(), '1');
    assert.is(await page.locator('[data-figure="Users online"] dd').innerText(), '1');
    // Two refreshes make a line: the charts have points.
    await page.waitForFunction('document.querySelector(".chart polyline")?.getAttribute("points")?.includes(" ")', undefined, { timeout: 10_000 });
    assert.is(await page.getByRole('img', { name: /^Events delivered over the last/ }).count(), 1);
    assert.equal(errors, []);
    await hamlet.context.close();
  } finally {
    await browser.close();
    await server.stop();
  }
});

test.run();
