// Writes docs/images/html-page.png, the screenshot of the HTML page in docs/report.md: the page of
// a 3,000-project fleet (bench/html-page.js) in headless Chromium, light mode, its top 1,000 × 1,100
// pixels. Run by hand after changing the page: `npm run build && node scripts/html-screenshot.js`.
// Needs Chromium (/usr/bin/chromium, or PLUMB_CHROMIUM).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { writeFleetPage } from '../bench/html-page.js';
import { root } from '../bench/lib.js';

const out = path.join(root, 'docs/images/html-page.png');
const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-html-shot-'));
const browser = await chromium.launch({ executablePath: process.env.PLUMB_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
try {
  const html = readFileSync(await writeFleetPage(dir), 'utf8');
  const page = await browser.newPage({ viewport: { width: 1000, height: 1100 }, colorScheme: 'light', deviceScaleFactor: 1 });
  await page.route('**/*', (route) => (route.request().url() === 'http://plumb.test/' ? route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }) : route.abort()));
  await page.goto('http://plumb.test/');
  await page.locator('.controls').first().waitFor({ state: 'visible' });
  mkdirSync(path.dirname(out), { recursive: true });
  await page.screenshot({ path: out });
  console.log(`${path.relative(root, out)}: ${(statSync(out).size / 1024).toFixed(0)} KB`);
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
