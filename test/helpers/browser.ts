// Headless Chromium for the browser tests: Debian's package (/usr/bin/chromium; `.ci/run` installs
// it when missing), driven by playwright-core, which never downloads a browser of its own. Each
// launch gets a fresh profile directory (playwright-core makes one and removes it on close).
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestServer } from './server.js';

export const CHROMIUM = process.env.PARLEY_CHROMIUM ?? '/usr/bin/chromium';

/** Flags that work on this machine: no GPU, no sandbox (root), nothing fetched from outside. */
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const launchBrowser = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: FLAGS });

export interface Person {
  context: BrowserContext;
  page: Page;
  /** What the page wrote to its console as errors, and the exceptions it threw. */
  errors: string[];
}

/** A browser context of its own (its own storage), at the server's web client. */
export async function visit(browser: Browser, baseUrl: string, hash = ''): Promise<Person> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // Refusals the test provokes are logged as failed loads; anything else logged as an error counts.
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
  });
  await page.goto(`${baseUrl}/${hash}`);
  return { context, page, errors };
}

/** A demo user signed in with the development login, the chat shown (at the narrow of `hash`, by
 * default the combined feed) and its event stream live. */
export async function signedIn(browser: Browser, server: Pick<TestServer, 'baseUrl'>, email: string, hash = ''): Promise<Person> {
  const person = await visit(browser, server.baseUrl, hash);
  await person.page.getByRole('button', { name: email }).click();
  await person.page.locator('[role=status][data-status=live]').waitFor();
  return person;
}

/** The unread count a sidebar link announces (0 when it shows none). */
export async function unreadCount(page: Page, label: RegExp): Promise<number> {
  const name = (await page.getByRole('navigation', { name: 'Narrows' }).getByRole('link', { name: label }).first().getAttribute('aria-label')) ?? '';
  return Number(/, (\d+) unread$/.exec(name)?.[1] ?? 0);
}

/** Waits until a sidebar link announces the unread count expected. */
export async function waitForUnread(page: Page, label: RegExp, expected: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let count = await unreadCount(page, label);
  while (count !== expected) {
    if (Date.now() > deadline) throw new Error(`${label}: ${count} unread, not ${expected}`);
    await page.waitForTimeout(20);
    count = await unreadCount(page, label);
  }
}
