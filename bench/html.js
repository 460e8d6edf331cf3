// How fast the HTML page of a 3,000-project fleet opens in headless Chromium (issue 33: "opens in
// under 2 s"): from navigation to the page's load event, its script run (the filter controls
// shown), median of RUNS, each in a fresh browser context. The page is made once by the CLI
// (bench/html-page.js). Needs `npm run build` and Chromium (/usr/bin/chromium, or PLUMB_CHROMIUM);
// without it the row says so and fails.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFleetPage } from './html-page.js';

const RUNS = Number(process.env.PLUMB_BENCH_RUNS ?? 3);
const CHROMIUM = process.env.PLUMB_CHROMIUM ?? '/usr/bin/chromium';
const URL_ = 'http://plumb.test/page.html';

export async function htmlBenchmarks() {
  const name = `HTML page of a 3,000-project report: opens in Chromium (load event, script run; median of ${RUNS})`;
  if (!existsSync(CHROMIUM)) return [{ name, measured: `no Chromium at ${CHROMIUM}`, target: '< 2000 ms', ok: false }];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-html-bench-'));
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const file = await writeFleetPage(dir);
    const html = readFileSync(file, 'utf8');
    const times = [];
    let requests = 0;
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.route('**/*', (route) => (route.request().url() === URL_ ? route.fulfill({ contentType: 'text/html; charset=utf-8', body: html }) : (requests++, route.abort())));
      const t0 = performance.now();
      await page.goto(URL_, { waitUntil: 'load' });
      await page.locator('.controls').first().waitFor({ state: 'visible' });
      times.push(performance.now() - t0);
      await context.close();
    }
    const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
    return [{ name, measured: `${median.toFixed(0)} ms (runs ${times.map((t) => t.toFixed(0)).join(', ')}); page ${(statSync(file).size / 1e6).toFixed(1)} MB; ${requests} other request(s)`, target: '< 2000 ms, no request', ok: median < 2000 && requests === 0 }];
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./lib.js');
  printTable(await htmlBenchmarks());
}
