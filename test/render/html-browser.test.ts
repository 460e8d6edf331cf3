/**
 * The HTML page (`plan --html`, `drift --html`, `report --html`; src/render/html.ts) opened in
 * headless Chromium: it renders with no console error and no network request, filtering narrows a
 * table and sorting orders it, a hostile token name on the instance shows as text, the keyboard
 * reaches every control, and axe-core finds no WCAG 2.1 A/AA violation in light or dark mode. The
 * pages are made by the CLI against the emulator. (How fast a 3,000-project page opens is measured
 * in bench/, not here.)
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { CHROMIUM, axeSource, launchChromium, openPage } from '../helpers/browser.js';
import { failWithoutCliInCi } from '../helpers/terraform.js';
import { BASE_DAY, addDays, harness, seedToken } from '../resources/group-access-tokens/helpers.js';
import type { Harness } from '../resources/group-access-tokens/helpers.js';

/** A token name an instance user chose: markup, a script, an event handler, ESC, a bidi override, a line break. */
const HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">\u001b[31mred\u202eevil\nline';

failWithoutCliInCi(CHROMIUM, 'the HTML page in Chromium', 'chromium (/usr/bin/chromium, or PLUMB_CHROMIUM)');

describe.runIf(CHROMIUM)('the HTML page in Chromium', () => {
  let h: Harness;
  let browser: Browser;
  let plan: string;
  let drift: string;
  let report: string;

  beforeAll(async () => {
    h = await harness({
      groups: [
        { full_path: 'platform', access_tokens: [seedToken(HOSTILE, 'seeded-hostile-html-0001', { id: 41, expires_at: addDays(BASE_DAY, 5) })] },
        { full_path: 'web' },
      ],
      projects: [
        { path_with_namespace: 'web/site-a', default_branch: 'main', files: { 'README.md': 'hello\n' } },
        { path_with_namespace: 'web/site-b', default_branch: 'main', files: { 'README.md': 'old\n' } },
      ],
    });
    h.config({
      platform: { tokens: { deploy: { expires_at: addDays(BASE_DAY, 200) }, build: { expires_at: addDays(BASE_DAY, 100) } } },
      web: { tokens: { publish: { expires_at: addDays(BASE_DAY, 300) } } },
    });
    // A selector over two projects: one README in sync, one drifted.
    h.wd.write('plumb.yaml', h.wd.read('plumb.yaml') + '    projects:\n      "web/**":\n        files:\n          README.md:\n            content: "hello\\n"\n');
    const p = await h.run(['plan', '--html', 'plan.html']);
    expect(p.code, p.stderr).toBe(0);
    plan = h.wd.read('plan.html');
    const r = await h.run(['report', '--html', 'report.html', '--expiring-within', '30d']);
    expect(r.code, r.stderr).toBe(2);
    report = h.wd.read('report.html');
    const d = await h.run(['drift', '--html', 'drift.html', '--expiring-within', '30d']);
    expect(d.code, d.stderr).toBe(2);
    drift = h.wd.read('drift.html');
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
    // workdir() leaves its directory behind; this suite removes its own.
    if (h) rmSync(h.wd.dir, { recursive: true, force: true });
  });

  it('renders with no console error and no network request, its script allowed by the CSP', async () => {
    for (const html of [plan, drift, report]) {
      const context = await browser.newContext();
      const { page, errors, requests } = await openPage(context, html);
      // The filter controls are hidden until the script runs: shown means the CSP hash let it run.
      await expect.poll(() => page.locator('.controls').first().isVisible()).toBe(true);
      expect(await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-[^']+';/);
      expect(await page.locator('h2').allTextContents()).toEqual(expect.arrayContaining(['Summary', 'Risks', 'Expiry timeline']));
      expect(await page.locator('svg[role="img"]').count()).toBe(1);
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      await context.close();
    }
  });

  it('filters and sorts a table', async () => {
    const context = await browser.newContext();
    const { page, errors } = await openPage(context, plan);
    const rows = page.locator('#instance-0-table > tbody > tr');
    const visible = () => rows.evaluateAll((rs) => rs.filter((r) => !r.hasAttribute('hidden')).map((r) => r.querySelector('summary')!.textContent));
    expect((await visible()).length).toBe(5);
    await page.getByLabel("Filter local's resources").fill('PLATFORM');
    expect(await visible()).toEqual(['local.group["platform"].access_token["deploy"]', 'local.group["platform"].access_token["build"]']);
    await expect.poll(() => page.locator('#instance-0 ~ .controls output, .controls output').first().textContent()).toBe('Showing 2 of 5');
    await page.getByRole('button', { name: 'Resource' }).click();
    expect(await visible()).toEqual(['local.group["platform"].access_token["build"]', 'local.group["platform"].access_token["deploy"]']);
    expect(await page.locator('th[aria-sort]').getAttribute('aria-sort')).toBe('ascending');
    await page.getByRole('button', { name: 'Resource' }).click();
    expect(await visible()).toEqual(['local.group["platform"].access_token["deploy"]', 'local.group["platform"].access_token["build"]']);
    await page.getByLabel("Filter local's resources").fill('');
    await page.getByLabel('Status').selectOption('create');
    expect((await visible()).length).toBe(3);
    await page.getByLabel("Filter local's resources").fill('web');
    expect(await visible()).toEqual(['local.group["web"].access_token["publish"]']);
    await page.getByLabel('Status').selectOption('update');
    expect(await visible()).toEqual(['local.project["web/site-b"].branch["main"].file["README.md"]']);
    expect(await page.getByLabel('Status').locator('option').allTextContents(), 'the statuses the table holds, worst first').toEqual(['any', 'update', 'create', 'no change']);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows a hostile token name as text: no element, no script, control characters visible', async () => {
    for (const html of [plan, drift, report]) {
      expect(html).not.toContain('<script>window');
      expect(html).not.toContain('<img');
      expect(html).not.toContain('\u001b');
      expect(html).not.toContain('\u202e');
    }
    const context = await browser.newContext();
    const { page, errors } = await openPage(context, drift);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(1);
    // In the notes (an undeclared token) and in the expiry horizon (it expires in 5 days).
    for (const section of ['notes', 'expiry']) {
      const text = await page.locator(`section[aria-labelledby="${section}"]`).textContent();
      expect(text, section).toContain('<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">␛[31mred⟨U+202E⟩evil');
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it('is readable without JavaScript: every row shown, no dead control, details open', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const { page, errors } = await openPage(context, plan);
    expect(await page.locator('#instance-0-table > tbody > tr:visible').count()).toBe(5);
    expect(await page.locator('.controls').first().isVisible()).toBe(false);
    expect(await page.locator('th button:visible').count()).toBe(0);
    await page.locator('#instance-0-table summary').first().click();
    expect(await page.locator('#instance-0-table details').first().getAttribute('open')).toBe('');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('reaches every control with the keyboard, and works them with it', async () => {
    const context = await browser.newContext();
    const { page, errors } = await openPage(context, plan);
    // Strings: the page's DOM is not this program's types.
    const controls = (await page.evaluate(`(() => {
      const all = [...document.querySelectorAll('a[href], input, select, button, summary')].filter((e) => e.checkVisibility());
      all.forEach((e, i) => (e.dataset.k = String(i)));
      return all.length;
    })()`)) as number;
    expect(controls).toBeGreaterThan(8);
    const reached = new Set<string>();
    for (let i = 0; i < controls + 5; i++) {
      await page.keyboard.press('Tab');
      const k = (await page.evaluate('document.activeElement?.dataset.k')) as string | undefined;
      if (k !== undefined) reached.add(k);
    }
    expect(reached.size).toBe(controls);
    // Enter on a sort button sorts; Enter on a summary opens its details.
    await page.getByRole('button', { name: 'Resource' }).focus();
    await page.keyboard.press('Enter');
    expect(await page.locator('th[aria-sort]').getAttribute('aria-sort')).toBe('ascending');
    await page.locator('#instance-0-table summary').first().focus();
    await page.keyboard.press('Enter');
    expect(await page.locator('#instance-0-table details').first().getAttribute('open')).toBe('');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('has no accessibility violation (axe-core, WCAG 2.1 A and AA), in light and in dark mode', async () => {
    const source = axeSource();
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const html of [plan, drift, report]) {
        const context = await browser.newContext({ colorScheme });
        const { page, errors } = await openPage(context, html);
        await page.evaluate(`document.querySelectorAll('details').forEach((d) => (d.open = true))`);
        await page.evaluate(source);
        // A string: the page's own globals (axe) are not this program's types.
        const violations = (await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
          .then((r) => r.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.html).join(' | ').slice(0, 300)))`)) as string[];
        expect(violations, colorScheme).toEqual([]);
        expect(errors).toEqual([]);
        await context.close();
      }
    }
  }, 120_000);
});
