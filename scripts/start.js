// `npm start`: plumb's main job end to end against the embedded emulator, narrated step by step.
//
//   1. start the emulator (a local instance) seeded from examples/emulator-seed.yaml on port 8929;
//   2. plumb validate, plan and apply the configuration in examples/plumb/;
//   3. plan again: nothing to do (no perpetual diff);
//   4. change a setting out of band, as an admin clicking in the UI would;
//   5. plumb drift catches it (exit 2), and apply converges again;
//   6. repository files: step 3 created CODEOWNERS and SECURITY.md; a push edits CODEOWNERS out of
//      band, drift catches it (exit 2), plan --show-private-content shows the diff, apply restores it;
//   7. eighty days later (--now), drift reports the token's rotation is due and apply rotates it;
//   8. plumb export writes the instance as a configuration, and a plan of it is "No changes".
//
// It leaves nothing behind: its state file and the export live in one temporary directory, removed
// at the end. When port 8929 is busy, the emulator takes a free port and the run uses a copy of
// examples/ (in that directory) whose instance.yaml points there; the repository is not edited.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { startEmulator } from '../dist/emulator/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const seedFile = path.join(root, 'examples/emulator-seed.yaml');
const port = Number(process.env.PLUMB_EMULATOR_PORT ?? 8929);

const seed = parse(readFileSync(seedFile, 'utf8'));
const admin = seed.users.find((u) => u.admin);
const adminToken = admin.personal_access_tokens.find((t) => t.scopes.includes('api')).token;

const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\u001b[1m${s}\u001b[0m` : s);
let failures = 0;

/** Everything this run writes outside the repository (state, export, a copy of examples/). */
const work = mkdtempSync(path.join(os.tmpdir(), 'plumb-start-'));
/** Where the steps run: the repository, or the copy of examples/ when the port moved. */
let cwd = root;

const env = {
  ...process.env,
  PLUMB_TOKEN: adminToken,
  PLUMB_STATE: path.join(work, 'state.json'),
};

// The emulator's clock: steps 16-17 move it with plumb's --now, so the tokens it issues then
// carry the dates a run 80 days from now would see (an export infers their 90-day lifetime).
let clockOffsetMs = 0;
const now = () => new Date(Date.now() + clockOffsetMs);

// The emulator runs in this process, so the CLI runs as an asynchronous child (a synchronous one
// would block the emulator from answering).
async function step(title, args, expectCode) {
  console.log(`\n${bold(`── ${title}`)}\n$ plumb ${args.join(' ')}\n`);
  const child = spawn(process.execPath, [path.join(root, 'bin/plumb.js'), ...args], { cwd, env, stdio: 'inherit' });
  const status = await new Promise((resolve) => child.on('close', resolve));
  const ok = status === expectCode;
  console.log(`${ok ? '✔' : '✘'} exit code ${status}${ok ? '' : ` (expected ${expectCode})`}`);
  if (!ok) failures++;
  return status;
}

let emulator;
try {
  emulator = await startEmulator({ seed: seedFile, port, now });
} catch (err) {
  if (err.code !== 'EADDRINUSE') {
    rmSync(work, { recursive: true, force: true });
    console.error(`Could not start the emulator on port ${port}: ${err.message}`);
    process.exit(1);
  }
  emulator = await startEmulator({ seed: seedFile, port: 0, now });
  console.log(`Port ${port} is busy: the emulator listens on ${emulator.url} instead.`);
}
// examples/plumb/instance.yaml names http://127.0.0.1:8929: on any other address, the steps run
// on a copy of examples/ that names the emulator's.
const configured = /url: (http:\/\/127\.0\.0\.1:\d+)/.exec(readFileSync(path.join(root, 'examples/plumb/instance.yaml'), 'utf8'))?.[1];
if (configured !== emulator.url) {
  for (const dir of ['plumb', 'files']) cpSync(path.join(root, 'examples', dir), path.join(work, 'examples', dir), { recursive: true });
  mkdirSync(path.join(work, 'examples/secrets'));
  const instance = path.join(work, 'examples/plumb/instance.yaml');
  writeFileSync(instance, readFileSync(instance, 'utf8').replace(`url: ${configured}`, `url: ${emulator.url}`));
  cwd = work;
  console.log(`This run uses a copy of examples/ in ${work} whose instance.yaml names ${emulator.url} (examples/plumb is unchanged).`);
}
console.log(`${bold('Emulator')} listening at ${emulator.url}/api/v4 (seed: examples/emulator-seed.yaml)`);

try {
  await step('1. Validate the configuration offline', ['validate', 'examples/plumb'], 0);
  await step('2. Plan: what would change on the instance', ['plan', 'examples/plumb'], 0);
  await step('3. Apply it', ['apply', 'examples/plumb', '--auto-approve'], 0);
  await step('4. Plan again: the instance now matches, nothing to do', ['plan', 'examples/plumb', '--detailed-exitcode'], 0);

  console.log(`\n${bold('── 5. Someone changes a setting by hand')}\nPUT /application/settings signup_enabled=true (out of band)`);
  const res = await fetch(`${emulator.url}/api/v4/application/settings`, {
    method: 'PUT',
    headers: { 'PRIVATE-TOKEN': adminToken, 'content-type': 'application/json' },
    body: JSON.stringify({ signup_enabled: true }),
  });
  console.log(`→ ${res.status}`);

  await step('6. Scheduled drift detection catches it (exit 2 = drift)', ['drift', 'examples/plumb'], 2);
  await step('7. Apply converges again', ['apply', 'examples/plumb', '--auto-approve'], 0);
  await step('8. In sync (exit 0)', ['drift', 'examples/plumb'], 0);

  await filesSteps(emulator);
  await pagesSteps(emulator);

  // The example token rotates 14 days before the end of its 90-day lifetime. --now moves plumb's
  // clock, and the emulator's with it, to show what a scheduled run 80 days from now would do.
  const later = new Date(Date.now() + 80 * 86_400_000).toISOString().slice(0, 10);
  clockOffsetMs = Date.parse(`${later}T12:00:00Z`) - Date.now();
  await step(`16. Eighty days later (--now ${later}): the token is inside its rotation window`, ['drift', 'examples/plumb', '--now', later], 2);
  await step('17. Apply rotates it; the new secret goes to its sink file, never to the screen', ['apply', 'examples/plumb', '--now', later, '--auto-approve'], 0);

  await exportSteps(later);
} finally {
  await emulator.close();
  rmSync(work, { recursive: true, force: true });
}

// Repository files, self-contained: the file step 3 created is edited by a push, then restored.
async function filesSteps(emu) {
  const project = encodeURIComponent('platform/infra/instance-config');
  const file = `${emu.url}/api/v4/projects/${project}/repository/files/CODEOWNERS`;
  console.log(`\n${bold('── 9. CODEOWNERS exists since step 3; a colleague pushes an edit to it')}\nPUT .../repository/files/CODEOWNERS (out of band)`);
  const res = await fetch(file, {
    method: 'PUT',
    headers: { 'PRIVATE-TOKEN': adminToken, 'content-type': 'application/json' },
    body: JSON.stringify({ branch: 'main', content: '* @someone-else\n', commit_message: 'Edit CODEOWNERS by hand' }),
  });
  console.log(`→ ${res.status}`);
  await step('10. Drift: the file was changed by a push after the last apply (exit 2)', ['drift', 'examples/plumb'], 2);
  // The project is private: --show-content alone would withhold its content (a CI log reaches
  // people the project does not); on your own terminal, --show-private-content shows it.
  await step('11. The diff, read on request (plan --show-private-content: the project is private)', ['plan', 'examples/plumb', '--show-private-content'], 0);
  await step('12. Apply restores it (one commit, guarded by the last commit plumb saw)', ['apply', 'examples/plumb', '--auto-approve'], 0);
}

// Pages, self-contained: step 3 set the handbook's primary domain; someone changes it by hand.
async function pagesSteps(emu) {
  const pages = `${emu.url}/api/v4/projects/${encodeURIComponent('platform/handbook')}/pages`;
  console.log(`\n${bold('── 13. Step 3 set the handbook\'s Pages primary domain to docs.example.test; someone changes it by hand')}\nPATCH .../projects/platform%2Fhandbook/pages pages_primary_domain=handbook.example.test (out of band)`);
  const res = await fetch(pages, {
    method: 'PATCH',
    headers: { 'PRIVATE-TOKEN': adminToken, 'content-type': 'application/json' },
    body: JSON.stringify({ pages_primary_domain: 'handbook.example.test' }),
  });
  console.log(`→ ${res.status}`);
  await step('14. Drift: the Pages primary domain differs (exit 2)', ['drift', 'examples/plumb'], 2);
  await step('15. Apply sets docs.example.test again (one PATCH with only that field)', ['apply', 'examples/plumb', '--auto-approve'], 0);
}

// Export, self-contained: the instance as it is now, written as a configuration in a temporary
// directory (token secrets would go to its secrets/, which export creates and keeps out of Git),
// then planned against the same instance: nothing to change.
async function exportSteps(later) {
  const out = path.join(work, 'export', 'config');
  await step(
    '18. Export the instance as a configuration: changed settings, the tokens of every group plumb\'s token owns, files, Pages',
    ['export', '-c', 'examples/plumb', '--out', out, '--sink-dir', 'secrets', '--file', 'platform/infra/instance-config:CODEOWNERS', '--file', 'platform/infra/instance-config:scripts/apply.sh', '--pages', 'platform/handbook', '--now', later],
    0,
  );
  // The header (how to re-export, the digest of what was written) is left out: the configuration itself is what to look at.
  const lines = readFileSync(path.join(out, 'plumb.yaml'), 'utf8').split('\n');
  const body = lines.slice(lines.findIndex((l) => !l.startsWith('#') && l.trim() !== ''));
  console.log(`\n  (${out}/plumb.yaml, after its header)\n${body.slice(0, 40).join('\n')}\n  … (removed at the end)`);
  // Planned with a state of its own: the state of steps 2-17 records where plumb delivered the
  // token's secret (the CI/CD variable of examples/plumb/tokens.yaml), which an export, read from
  // the instance alone, cannot know; against that state the plan would rotate the token so the
  // secret left in the variable stops working (docs/tokens.md, "Added, moved, removed").
  await step('19. Plan the exported configuration (with a state of its own): it describes the instance exactly (exit 0)', ['plan', out, '--state', path.join(work, 'export', 'state.json'), '--detailed-exitcode', '--now', later], 0);
}

console.log(failures === 0 ? `\n${bold('All steps behaved as expected.')}` : `\n${failures} step(s) did not behave as expected.`);
process.exit(failures === 0 ? 0 : 1);
