/**
 * Headless Chromium for the HTML page's tests: Debian's `chromium` package (.ci/run installs it
 * with apt when it is missing), driven by playwright-core, which never downloads a browser of its
 * own. `PLUMB_CHROMIUM` names another binary. Under CI (`CI` set) a suite must not skip without
 * it: pair `describe.runIf(CHROMIUM)` with `failWithoutCliInCi(CHROMIUM, …)` (./terraform.ts).
 *
 * Every page is served from one made-up origin (`http://plumb.test/`) by the test itself: any
 * other request the page makes is recorded and aborted, so "no network request" is checked, not
 * assumed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright-core';

const candidate = process.env.PLUMB_CHROMIUM ?? '/usr/bin/chromium';

/** The browser binary, or undefined when this machine has none. */
export const CHROMIUM: string | undefined = existsSync(candidate) ? candidate : undefined;

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  // Root in a container has no user namespace for Chromium's sandbox; the pages are our own.
  return chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

/** axe-core's browser bundle, as a string to evaluate in the page (never a `<script>`: the page's CSP would refuse it). */
export function axeSource(): string {
  return readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
}

export const PAGE_URL = 'http://plumb.test/page.html';

/** What a page did besides rendering: console errors, uncaught exceptions, requests it tried. */
export interface PageRecord {
  readonly page: Page;
  readonly errors: string[];
  readonly requests: string[];
}

/** Opens `html` in a new page of `context`, serving it at PAGE_URL and refusing every other request. */
export async function openPage(context: BrowserContext, html: string): Promise<PageRecord> {
  const page = await context.newPage();
  // A locator that matches nothing fails with its name within the test's time, not at the test's timeout.
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.route('**/*', async (route) => {
    const url = route.request().url();
    if (url === PAGE_URL) return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html });
    requests.push(url);
    return route.abort();
  });
  page.on('request', (r) => {
    if (r.url() !== PAGE_URL && !requests.includes(r.url())) requests.push(r.url());
  });
  await page.goto(PAGE_URL, { waitUntil: 'load' });
  return { page, errors, requests };
}
