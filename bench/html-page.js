// The HTML page of a 3,000-project fleet (issue 33), made by the built CLI against the emulator:
// `plumb report --expiring-within 30d`; one selector (`platform/**`) declaring CODEOWNERS in 3,000 projects, 24 of which hold another
// content (drifted); the group's tokens: one plumb rotates within the week, one declared and in
// date, one undeclared that expires in 10 days. Used by bench/html.js (how fast Chromium opens the
// page) and scripts/html-screenshot.js (the screenshot in docs/report.md). Needs `npm run build`.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { root } from './lib.js';

const ADMIN = 'bench-admin-token-0123456789';
export const TODAY = '2026-03-01';
const PROJECTS = 3000;
const DRIFTED = 24;
const day = (n) => new Date(Date.parse(`${TODAY}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const name = (i) => `platform/app-${String(i).padStart(4, '0')}`;

function seed() {
  const token = (tokenName, value, id, expiresIn) => ({ name: tokenName, token: value, id, scopes: ['read_api'], access_level: 30, expires_at: day(expiresIn) });
  return {
    users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'bench', token: ADMIN, scopes: ['api'] }] }],
    groups: [
      {
        full_path: 'platform',
        access_tokens: [token('deploy', 'bench-deploy-token-000001', 11, 5), token('ci', 'bench-ci-token-0000000001', 12, 40), token('legacy-release', 'bench-legacy-token-000001', 13, 10)],
      },
    ],
    projects: Array.from({ length: PROJECTS }, (_, i) => ({
      path_with_namespace: name(i),
      default_branch: 'main',
      files: { CODEOWNERS: i % (PROJECTS / DRIFTED) === 7 ? '* @someone-else\n' : '* @platform\n' },
    })),
  };
}

const CONFIG = (url) => `version: 1
instances:
  prod:
    url: ${url}
    token_env: PLUMB_TOKEN
    groups:
      platform:
        access_tokens:
          deploy:
            scopes: [read_api]
            access_level: 30
            rotation: {lifetime_days: 90, rotate_before_days: 14}
            sink: {file: secrets/deploy.token}
          ci:
            scopes: [read_api]
            access_level: 30
            expires_at: ${day(40)}
            sink: {file: secrets/ci.token}
    projects:
      "platform/**":
        files:
          CODEOWNERS:
            content: "* @platform\\n"
            branches: [main]
`;

/**
 * Writes `dir/page.html`: the page `plumb report --html --expiring-within 30d` makes of the fleet (the emulator answers at
 * once: this makes a page, it measures nothing). Returns its path.
 */
export async function writeFleetPage(dir) {
  const { startEmulator } = await import(new URL('../dist/emulator/index.js', import.meta.url).href);
  const now = new Date(`${TODAY}T12:00:00Z`);
  const emu = await startEmulator({ seed: seed(), now: () => now });
  try {
    writeFileSync(path.join(dir, 'plumb.yaml'), CONFIG(emu.url));
    mkdirSync(path.join(dir, 'secrets'), { mode: 0o700 });
    // Asynchronous: the emulator answers on this thread's event loop.
    const r = await plumb(['report', '--html', 'page.html', '--expiring-within', '30d', '--now', TODAY], dir);
    // 2: the fleet does not comply (24 drifted files, a token expiring), as seeded.
    if (r.code !== 2) throw new Error(`plumb report --html exited ${r.code}:\n${r.out.slice(-3000)}`);
  } finally {
    await emu.close();
  }
  return path.join(dir, 'page.html');
}

function plumb(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/plumb.js'), ...args], { cwd, env: { PATH: process.env.PATH, PLUMB_TOKEN: ADMIN }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}
