// Fleet-scale benchmarks (issue 23; imported by bench/run.js; needs `npm run build`): whole process,
// the emulator in a worker thread answering every request 20 ms after it arrives, concurrency 8,
// next to the latency floor and a plain undici script making the same requests (bench/baseline.js).
// The fleet is declared once, by a selector (`"platform/**"`): plumb lists the group's projects
// (100 a page: the first page, then the others at once) and then plans every match.
//
// - Plan of 2 repository files in each of 3,000 projects under one group: 30 list pages and 6,000
//   HEADs, and 3,000 branch GETs (each project has a change); target ≤ 1.3× floor. One file of each project is in sync, the other is missing (3,000
//   creates: the plan renders them grouped, and flags `large-change-set`). Peak RSS of that process
//   (its own `process.resourceUsage().maxRSS`, written at exit by bench/rss-preload.cjs): target
//   ≤ 300 MB.
// - Apply of one changed file in each of 1,000 projects (`--allow-risky`: 1,000 changes exceed
//   `--max-changes`): 10 list pages, 1,000 HEADs, 1,000 branch GETs (plan reads a changed
//   project's branch: may plumb push there?) and 1,000 PUTs, one lane per branch; target ≤ 1.3× floor.
// - Apply of two changed files in each of 1,000 projects, one commit per project (`delivery:
//   commit`) onto its protected default branch (the risk `admin-push-protected-branch` accepted by
//   `--allow-risky`): 10 list pages, 2,000 HEADs, 1,000 branch GETs, GET /personal_access_tokens/self
//   and GET /user once, and 1,000 commit POSTs; target ≤ 1.3× floor.
// - Apply of a file that none of 3,003 projects has (a new CODEOWNERS for the fleet, issue 29.11):
//   31 list pages, 3,003 HEADs, 3,003 branch GETs and 3,003 POSTs, 9,040 requests (the listing shows each project and
//   its default branch, so a 404 there is the file's); target ≤ 1.3× floor.
// - Apply by merge request (issue 32 item 4): 2 changed files in each of 1,000 projects (one
//   changed, one new), `delivery: merge_request`: 10 list pages, 1 merge-request listing (the
//   instance-wide one: plumb's user is an administrator), 2,000 HEADs, then per project 1 commit
//   (the branch made from main by the commit itself) and 1 merge request; target ≤ 1.3× floor.
//   plumb also reads who it is (GET /user, GET /personal_access_tokens/self: 2 requests, in the floor).
//   The default branches are protected, and never written.
// - Report (`plumb report --expiring-within 30d --out report.json`) of 3,000 projects under one
//   selector, each declaring `pages: {pages_https_only: true}` (every 20th drifted, every 10th with a
//   certificate expiring within the window), and the group's access tokens (2 declared, 1
//   undeclared; 2 expire within the window: 302 entries in the horizon): 30 list pages, 1 token list, 3,000 Pages reads and
//   3,000 Pages domain listings; target ≤ 1.3× floor.
//
// `PLUMB_BENCH_SMOKE=1` (bench/lib.js): the same rows over 103 projects (two list pages), once.
//
// The floor (`floorMs`): the first list page alone (it gives X-Total-Pages, so nothing can overlap
// it), then every other request with 8 in flight: (1 + ceil((pages − 1 + requests) ÷ 8)) × 20 ms.
// The emulator's own time per request (the row shows a request's average time from arrival to answer)
// and the client's turnaround are not in it: the baseline pays them as plumb does.
//
// `node bench/fleet.js` runs these rows alone; PLUMB_BENCH_PROFILE=DIR writes plumb's CPU profiles.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, scale } from './lib.js';
import { remoteEmulator } from './wire.js';

const ADMIN = 'bench-admin-token-0123456789';
const LATENCY_MS = 20;
const CONCURRENCY = 8;
const RUNS = Number(process.env.PLUMB_BENCH_RUNS ?? scale(3, 1));
const PROFILE = process.env.PLUMB_BENCH_PROFILE;
/** Rows to run (comma-separated: plan,apply,commit,missing,mr,report); default all. */
const ONLY = process.env.PLUMB_BENCH_ONLY?.split(',');
const want = (row) => !ONLY || ONLY.includes(row);
const TODAY = '2026-03-01';
const MESSAGE = 'bench: fleet file';
const adminUser = { username: 'root', admin: true, personal_access_tokens: [{ name: 'bench', token: ADMIN, scopes: ['api'] }] };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const PER_PAGE = 100;
const pagesOf = (projects) => Math.ceil(projects / PER_PAGE);
/** The latency floor of listing `projects` projects, then `requests` more requests. */
const floorMs = (projects, requests) => (1 + Math.ceil((pagesOf(projects) - 1 + requests) / CONCURRENCY)) * LATENCY_MS;
/** The list request plumb makes for `platform/**` (src/api/discovery.ts), without per_page and page. */
const DISCOVERY_QUERY = 'include_subgroups=true&with_shared=false&order_by=id&sort=asc&archived=false&simple=true';
const name = (i) => `platform/app-${String(i).padStart(4, '0')}`;

/**
 * `projects` projects under `platform/`, each holding `files` ({path: content}); the configuration
 * declares `declared` ({path: content}) for every one of them with one selector.
 */
function workload(projects, files, declared, { protectedMain = false, extra } = {}) {
  const lines = ['version: 1', 'instances:', '  bench:', '    url: URL', '    token_env: PLUMB_TOKEN', '    projects:', '      "platform/**":', ...(extra ? [extra] : []), '        files:'];
  for (const [file, content] of Object.entries(declared)) {
    lines.push(`          ${file}:`, `            content: ${JSON.stringify(content)}`, '            branches: [main]', `            commit_message: ${JSON.stringify(MESSAGE)}`);
  }
  return {
    projects,
    yaml: lines.join('\n') + '\n',
    // `main` unprotected unless asked: protected, an administrator's commit there is a risk, and plan reads who plumb is.
    seed: { users: [adminUser], groups: [{ full_path: 'platform' }], projects: Array.from({ length: projects }, (_, i) => ({ path_with_namespace: name(i), default_branch: 'main', ...(!protectedMain && { protected_branches: [] }), files })) },
    job: { discover: { group: 'platform', query: DISCOVERY_QUERY }, files: Object.entries(declared).map(([p, content]) => ({ path: p, content })), branch: 'main', message: MESSAGE, branchRead: true, identity: protectedMain },
  };
}

/** Runs `node args…` in `cwd`; resolves with the wall time (ms), the output and the peak RSS (MB). */
function run(args, cwd, ok = [0]) {
  return new Promise((resolve, reject) => {
    const rssFile = path.join(cwd, 'rss.json');
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--require', path.join(root, 'bench/rss-preload.cjs'), ...args], {
      cwd,
      env: { PATH: process.env.PATH, PLUMB_TOKEN: ADMIN, PLUMB_BENCH_RSS_FILE: rssFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out.length < 4e6 ? (out += d) : undefined));
    child.stderr.on('data', (d) => (out.length < 4e6 ? (out += d) : undefined));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - t0;
      if (!ok.includes(code)) return reject(new Error(`node ${args.join(' ')} exited ${code}:\n${out.slice(-3000)}`));
      let rssMb = NaN;
      try {
        rssMb = JSON.parse(readFileSync(rssFile, 'utf8')).maxRssMb;
      } catch {
        // the baseline or a process that did not load the preload
      }
      resolve({ ms, out, rssMb });
    });
  });
}

/** One process against a fresh emulator from `w.seed`: plumb with `args`, or the baseline in `mode`. */
async function measure(emu, w, { args, mode, ok = [0] }) {
  const url = await emu.start(w.seed, TODAY);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-fleet-'));
  try {
    let cmd;
    if (mode) {
      writeFileSync(path.join(dir, 'job.json'), JSON.stringify({ url, token: ADMIN, concurrency: CONCURRENCY, mode, ...w.job }));
      cmd = [path.join(root, 'bench/baseline.js'), path.join(dir, 'job.json')];
    } else {
      writeFileSync(path.join(dir, 'plumb.yaml'), w.yaml.replace('URL', url));
      cmd = [...(PROFILE ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : []), path.join(root, 'bin/plumb.js'), ...args, '--now', TODAY, '--concurrency', String(CONCURRENCY)];
    }
    await emu.resetRequests();
    const r = await run(cmd, dir, mode ? [0] : ok);
    const stats = await emu.stats();
    return { ...r, requests: stats.requests, byMethod: stats.byMethod, failed: stats.failed, avgInFlight: stats.avgInFlight, avgServerMs: stats.avgServerMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `RUNS` paired runs (baseline, then plumb); medians, and the median of the paired ratios. */
async function paired(emu, w, args, mode, ok = [0]) {
  const p = [];
  const b = [];
  for (let i = 0; i < RUNS; i++) {
    b.push(await measure(emu, w, { mode }));
    p.push(await measure(emu, w, { args, ok }));
  }
  return {
    plumb: { ...p[0], ms: median(p.map((x) => x.ms)), runs: p.map((x) => x.ms), rssMb: Math.max(...p.map((x) => x.rssMb)) },
    baseline: { ...b[0], ms: median(b.map((x) => x.ms)) },
    vsBaseline: median(p.map((x, i) => x.ms / b[i].ms)),
  };
}

/** `requests`: what the workload needs after the list pages (the floor); plumb's own count is shown next to it. */
function describe({ plumb, baseline, vsBaseline }, projects, requests) {
  const floor = floorMs(projects, requests);
  const methods = Object.entries(plumb.byMethod).map(([m, n]) => `${n} ${m}`).join(', ');
  return (
    `${plumb.ms.toFixed(0)} ms (runs ${plumb.runs.map((ms) => (ms / floor).toFixed(2)).join(', ')}× floor); ${plumb.requests} req (${methods})${plumb.failed ? `, ${plumb.failed} failed` : ''}; floor ${floor} ms (${(plumb.ms / floor).toFixed(2)}×); ` +
    `avg ${plumb.avgInFlight.toFixed(1)} in flight, ${plumb.avgServerMs.toFixed(1)} ms each at the emulator; baseline ${baseline.ms.toFixed(0)} ms, ${baseline.requests} req (${(baseline.ms / floor).toFixed(2)}× floor; plumb ${vsBaseline.toFixed(2)}× baseline)`
  );
}

export async function fleetBenchmarks() {
  const emu = await remoteEmulator();
  const rows = [];
  const label = `${LATENCY_MS} ms latency, concurrency ${CONCURRENCY}, whole process, median of ${RUNS}`;
  try {
    // 1. Plan: CODEOWNERS in sync everywhere, SECURITY.md missing everywhere.
    if (want('plan')) {
      const n = scale(3000, 103);
      const N = n.toLocaleString('en');
      const planW = workload(n, { CODEOWNERS: '* @platform\n' }, { CODEOWNERS: '* @platform\n', 'SECURITY.md': '# Security\n' });
      const plan = await paired(emu, planW, ['plan'], 'files-plan');
      const grouped = new RegExp(`file\\["SECURITY\\.md"\\] will be created .* in ${N} projects`).test(plan.plumb.out);
      const counted = new RegExp(`\\["platform/\\*\\*"\\] matched ${N} projects`).test(plan.plumb.out);
      const expected = pagesOf(n) + 3 * n;
      rows.push({
        name: `fleet plan: 2 files in each of ${N} projects, one selector platform/** (${label})`,
        measured: `${describe(plan, n, 3 * n)}; grouped in the human plan: ${grouped ? 'yes' : 'NO'}; selector count shown: ${counted ? 'yes' : 'NO'}`,
        target: `≤ 1.3× floor (${pagesOf(n)} list pages + ${(2 * n).toLocaleString('en')} HEAD + ${N} branch GET)`,
        ok: plan.plumb.ms <= 1.3 * floorMs(n, 3 * n) && plan.plumb.requests === expected && plan.baseline.requests === expected && plan.plumb.failed === n && grouped && counted,
      });
      rows.push({
        name: `fleet plan of ${N} projects: peak RSS of the plumb process`,
        measured: `${plan.plumb.rssMb.toFixed(0)} MB (max of ${RUNS})`,
        target: '≤ 300 MB',
        ok: plan.plumb.rssMb <= 300,
      });
    }

    // 2. Apply: one changed file in each of 1,000 projects.
    if (want('apply')) {
      const n = scale(1000, 103);
      const N = n.toLocaleString('en');
      const applyW = workload(n, { CODEOWNERS: '* @old\n' }, { CODEOWNERS: '* @platform\n' });
      const apply = await paired(emu, applyW, ['apply', '--auto-approve', '--allow-risky'], 'files-apply');
      const expected = pagesOf(n) + 3 * n;
      rows.push({
        name: `fleet apply: 1 changed file in each of ${N} projects, one selector platform/** (${label})`,
        measured: describe(apply, n, 3 * n),
        target: `≤ 1.3× floor (${pagesOf(n)} list pages + ${N} HEAD + ${N} branch GET + ${N} PUT)`,
        ok: apply.plumb.ms <= 1.3 * floorMs(n, 3 * n) && apply.plumb.requests === expected && apply.baseline.requests === expected && apply.plumb.failed === 0,
      });
    }

    // 2b. Apply: two changed files in each of 1,000 projects, one commit per project (`delivery:
    //     commit`, the default) onto its protected default branch, the risk accepted.
    if (want('commit')) {
      const n = scale(1000, 103);
      const N = n.toLocaleString('en');
      const commitW = workload(n, { CODEOWNERS: '* @old\n', 'SECURITY.md': '# Old\n' }, { CODEOWNERS: '* @platform\n', 'SECURITY.md': '# Security\n' }, { protectedMain: true });
      const commit = await paired(emu, commitW, ['apply', '--auto-approve', '--allow-risky'], 'files-commit');
      // The list pages, 2 HEAD, 1 branch GET and 1 commit per project, and who plumb is (2 GET, once).
      const requests = 4 * n + 2;
      const expected = pagesOf(n) + requests;
      rows.push({
        name: `fleet apply: 2 changed files in each of ${N} projects by one commit per project, one selector platform/** (${label})`,
        measured: describe(commit, n, requests),
        target: `≤ 1.3× floor (${pagesOf(n)} list pages + ${(2 * n).toLocaleString('en')} HEAD + ${N} branch GET + 2 identity GET + ${N} commit POST)`,
        ok: commit.plumb.ms <= 1.3 * floorMs(n, requests) && commit.plumb.requests === expected && commit.baseline.requests === expected && commit.plumb.failed === 0 && commit.plumb.byMethod.POST === n,
      });
    }

    // 3. Apply: a file that no project has (every HEAD answers 404), created everywhere.
    if (want('missing')) {
      const n = scale(3003, 103);
      const N = n.toLocaleString('en');
      const missingW = workload(n, { 'README.md': '# app\n' }, { CODEOWNERS: '* @platform\n' });
      const missing = await paired(emu, missingW, ['apply', '--auto-approve', '--allow-risky'], 'files-apply');
      const expected = pagesOf(n) + 3 * n;
      rows.push({
        name: `fleet apply: every file missing, 1 new file in each of ${N} projects, one selector platform/** (${label})`,
        measured: describe(missing, n, 3 * n),
        target: `${expected.toLocaleString('en')} req (${pagesOf(n)} list pages + ${N} HEAD + ${N} branch GET + ${N} POST), ≤ 1.3× floor`,
        ok:
          missing.plumb.ms <= 1.3 * floorMs(n, 3 * n) &&
          missing.plumb.requests === expected &&
          missing.baseline.requests === expected &&
          missing.plumb.byMethod.POST === n &&
          missing.plumb.failed === n, // the HEADs' 404s
      });
    }

    // 4. Apply by merge request: 2 changed files in each of 1,000 projects, one merge request each.
    if (want('mr')) {
      const n = scale(1000, 103);
      const N = n.toLocaleString('en');
      const declared = { CODEOWNERS: '* @platform\n', 'SECURITY.md': '# Security\n' };
      // The default branches protected, as on a real instance: plumb never writes them here.
      const w = workload(n, { CODEOWNERS: '* @old\n' }, declared, { protectedMain: true, extra: '        delivery: {merge_request: {title: "bench: fleet file"}}' });
      w.job = { ...w.job, sourceBranch: 'plumb/bench', branchRead: false, identity: true };
      const mr = await paired(emu, w, ['apply', '--auto-approve', '--allow-risky'], 'files-mr');
      // After the list pages: 2 HEAD per project, 1 merge-request listing, 1 commit and 1 merge request per project, and who plumb is (2 GET, once).
      const requests = 4 * n + 3;
      const expected = pagesOf(n) + requests;
      rows.push({
        name: `fleet apply by merge request: 2 changed files in each of ${N} projects, one selector platform/** (${label})`,
        measured: describe(mr, n, requests),
        target: `≤ 1.3× floor (${pagesOf(n)} list pages + 1 merge-request listing + ${(2 * n).toLocaleString('en')} HEAD + 2 identity GET + ${N} commits + ${N} merge requests)`,
        ok: mr.plumb.ms <= 1.3 * floorMs(n, requests) && mr.plumb.requests === expected && mr.baseline.requests === expected && mr.plumb.failed === n && mr.plumb.byMethod.POST === 2 * n,
      });
    }

    // 3. Report: one selector's Pages, the group's tokens, the expiry horizon; written as JSON and as
    //    the HTML page (issue 33's done-when: the page of a 3,000-project fleet).
    if (want('report')) {
      const w = reportWorkload(3000);
      const report = await paired(emu, w, ['report', '--expiring-within', '30d', '--out', 'report.json', '--html', 'report.html'], 'report', [2]);
      const summary = /3,000 projects, 2,850 compliant, 150 drifted/.test(report.plumb.out) && /Expiring within 30d .*: 302, 302 to act on/.test(report.plumb.out);
      const requests = 1 + 3000 * 2;
      const expected = pagesOf(3000) + requests;
      rows.push({
        name: `fleet report --html: Pages of 3,000 projects under one selector, the group's tokens, --expiring-within 30d (${label})`,
        measured: `${describe(report, 3000, requests)}; selector summary and horizon as seeded: ${summary ? 'yes' : 'NO'}`,
        target: `≤ 1.3× floor (${pagesOf(3000)} list pages + 1 token list + 3,000 Pages GET + 3,000 domain lists)`,
        ok: report.plumb.ms <= 1.3 * floorMs(3000, requests) && report.plumb.requests === expected && report.baseline.requests === expected && report.plumb.failed === 0 && summary,
      });
    }
  } finally {
    await emu.close();
  }
  return rows;
}

/**
 * `plumb report`'s fleet: 3,000 projects under `platform/`, all declared by `"platform/**"` with
 * `pages: {pages_https_only: true}`; every 20th has HTTPS off (drifted), every 10th a custom domain
 * whose certificate expires in 10 days; the group holds 3 tokens, 2 declared, expiring in 5, 20 and
 * 200 days (one declared, one not, within 30 days).
 */
function reportWorkload(projects) {
  const day = (n) => new Date(Date.parse(TODAY + 'T00:00:00Z') + n * 86_400_000).toISOString().slice(0, 10);
  const yaml = [
    'version: 1',
    'instances:',
    '  bench:',
    '    url: URL',
    '    token_env: PLUMB_TOKEN',
    '    groups:',
    '      platform:',
    '        access_tokens:',
    `          ci: {scopes: [read_api], access_level: 30, expires_at: ${day(20)}, sink: {file: secrets/ci.token}}`,
    `          deploy: {scopes: [read_api], access_level: 30, expires_at: ${day(200)}, sink: {file: secrets/deploy.token}}`,
    '    projects:',
    '      "platform/**":',
    '        pages: {pages_https_only: true}',
    '',
  ].join('\n');
  const token = (name, n, i) => ({ name, token: `bench-report-token-${i}-0123456789`, scopes: ['read_api'], access_level: 30, expires_at: day(n) });
  return {
    projects,
    yaml,
    seed: {
      users: [adminUser],
      groups: [{ full_path: 'platform', access_tokens: [token('ci', 20, 1), token('deploy', 200, 2), token('old', 5, 3)] }],
      projects: Array.from({ length: projects }, (_, i) => ({
        path_with_namespace: name(i),
        default_branch: 'main',
        pages: { https_only: i % 20 !== 0, ...(i % 10 === 5 && { domains: [{ domain: `app-${i}.example.test`, certificate_expires_at: `${day(10)}T00:00:00Z` }] }) },
      })),
    },
    job: { discover: { group: 'platform', query: DISCOVERY_QUERY }, files: [], groups: [{ path: 'platform', tokens: [] }] },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./lib.js');
  printTable(await fleetBenchmarks());
}
