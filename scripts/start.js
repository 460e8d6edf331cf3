// `npm start`: plumb's main job end to end against the embedded emulator, narrated step by step.
//
//   1. start the emulator (a local instance) seeded from examples/emulator-seed.yaml on port 8929;
//   2. plumb validate, plan and apply the configuration in examples/plumb/;
//   3. plan again: nothing to do (no perpetual diff);
//   4. change a setting out of band, as an admin clicking in the UI would;
//   5. plumb drift catches it (exit 2), and apply converges again;
//   6. repository files: step 3 created CODEOWNERS and SECURITY.md; a push edits CODEOWNERS out of
//      band, drift catches it (exit 2), plan --show-content shows the diff, apply restores it;
//   7. eighty days later (--now), drift reports the token's rotation is due and apply rotates it;
//   8. plumb export writes the instance as a configuration, and a plan of it is "No changes".
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
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

const env = {
  ...process.env,
  PLUMB_TOKEN: adminToken,
  PLUMB_STATE: path.join(mkdtempSync(path.join(os.tmpdir(), 'plumb-start-')), 'state.json'),
};

// The emulator runs in this process, so the CLI runs as an asynchronous child (a synchronous one
// would block the emulator from answering).
async function step(title, args, expectCode) {
  console.log(`\n${bold(`── ${title}`)}\n$ plumb ${args.join(' ')}\n`);
  const child = spawn(process.execPath, [path.join(root, 'bin/plumb.js'), ...args], { cwd: root, env, stdio: 'inherit' });
  const status = await new Promise((resolve) => child.on('close', resolve));
  const ok = status === expectCode;
  console.log(`${ok ? '✔' : '✘'} exit code ${status}${ok ? '' : ` (expected ${expectCode})`}`);
  if (!ok) failures++;
  return status;
}

let emulator;
try {
  emulator = await startEmulator({ seed: seedFile, port });
} catch (err) {
  console.error(`Could not start the emulator on port ${port}: ${err.message}\nSet PLUMB_EMULATOR_PORT to a free port (and change the url in examples/plumb/instance.yaml).`);
  process.exit(1);
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
  // clock (not the emulator's) to show what a scheduled run 80 days from now would do.
  const later = new Date(Date.now() + 80 * 86_400_000).toISOString().slice(0, 10);
  await step(`16. Eighty days later (--now ${later}): the token is inside its rotation window`, ['drift', 'examples/plumb', '--now', later], 2);
  await step('17. Apply rotates it; the new secret goes to its sink file, never to the screen', ['apply', 'examples/plumb', '--now', later, '--auto-approve'], 0);

  await exportSteps();
} finally {
  await emulator.close();
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
  await step('11. The diff, read on request (plan --show-content)', ['plan', 'examples/plumb', '--show-content'], 0);
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
async function exportSteps() {
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'plumb-export-')), 'config');
  await step(
    '18. Export the instance as a configuration: changed settings, the tokens of every group plumb\'s token owns, files, Pages',
    ['export', '-c', 'examples/plumb', '--out', out, '--sink-dir', 'secrets', '--file', 'platform/infra/instance-config:CODEOWNERS', '--file', 'platform/infra/instance-config:scripts/apply.sh', '--pages', 'platform/handbook'],
    0,
  );
  console.log(`\n${readFileSync(path.join(out, 'plumb.yaml'), 'utf8').split('\n').slice(0, 40).join('\n')}\n  … (${out}/plumb.yaml)`);
  await step('19. Plan the exported configuration: it describes the instance exactly (exit 0)', ['plan', out, '--detailed-exitcode'], 0);
}

console.log(failures === 0 ? `\n${bold('All steps behaved as expected.')}` : `\n${failures} step(s) did not behave as expected.`);
process.exit(failures === 0 ? 0 : 1);
