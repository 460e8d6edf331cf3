/** Shared setup for the repository file tests: an emulator with one project, a working directory, a config writer. */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { runApply } from '../../../src/commands/reconcile.js';
import { startTestEmulator } from '../../helpers/emulator.js';
import type { EmulatorSeed, RunningEmulator } from '../../../src/emulator/index.js';
import { secret, workdir } from '../../helpers/cli.js';
import type { CliResult, Workdir } from '../../helpers/cli.js';

export const ADMIN_TOKEN = secret('admin-token-for-file-tests-0123456789');
export const PROJECT = 'platform/app';
export const README = 'hello\n';

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

export interface FileHarness {
  readonly emu: RunningEmulator;
  readonly wd: Workdir;
  /** Writes plumb.yaml with `files` (raw YAML lines under `files:`, indented by the caller as a mapping). */
  config(files: Readonly<Record<string, Readonly<Record<string, unknown>>>>, project?: string): void;
  run(args: readonly string[]): Promise<CliResult>;
  /** The file on a branch of the emulator's repository (undefined: absent). */
  file(path: string, branch?: string, project?: string): { data: Buffer; executable: boolean } | undefined;
  /** A commit made outside plumb, through the API (as a user clicking "Edit" would). */
  push(method: 'POST' | 'PUT' | 'DELETE', path: string, body: Record<string, unknown>, project?: string): Promise<number>;
  count(method: string, pathPattern: RegExp): number;
  /** An unsaved apply whose confirmation runs `between` first: an edit between plan and apply. */
  applyWithEditBetween(between: () => Promise<void>): Promise<{ code: number; out: string }>;
  close(): Promise<void>;
}

/**
 * The harness's emulator. Its projects have no protected branch unless the seed names some: an
 * administrator's commit onto a protected one is a risk of its own (delivery-protection.test.ts),
 * which the tests of the file mechanics do not accept.
 */
export async function fileHarness(seed: Partial<EmulatorSeed> = {}): Promise<FileHarness> {
  const full: EmulatorSeed = {
    users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] }],
    groups: [{ full_path: 'platform' }],
    // Internal: `plan --show-content` shows its files' diffs (a private project's are withheld).
    projects: [{ path_with_namespace: PROJECT, default_branch: 'main', visibility: 'internal', files: { 'README.md': README, 'scripts/run.sh': { content: '#!/bin/sh\necho run\n', execute: true } } }],
    ...seed,
  };
  const emu = await startTestEmulator({ seed: { ...full, projects: full.projects?.map((p) => ({ protected_branches: [], ...p })) } });
  const wd = workdir({ PLUMB_TOKEN: ADMIN_TOKEN });
  const h: FileHarness = {
    emu,
    wd,
    config(files, project = PROJECT) {
      const doc = { version: 1, instances: { local: { url: emu.url, token_env: 'PLUMB_TOKEN', projects: { [project]: { files } } } } };
      wd.write('plumb.yaml', JSON.stringify(doc, null, 2));
    },
    run: (args) => wd.run([...args, '--state', 'state.json']),
    file(path, branch = 'main', project = PROJECT) {
      const p = emu.state.projects.find((x) => x.pathWithNamespace === project)!;
      const blob = p.repo.branchHead(branch)?.files.get(path);
      return blob ? { data: blob.data, executable: blob.mode === '100755' } : undefined;
    },
    async push(method, path, body, project = PROJECT) {
      const res = await fetch(`${emu.url}/api/v4/projects/${encodeURIComponent(project)}/repository/files/${encodeURIComponent(path)}`, {
        method,
        headers: { 'PRIVATE-TOKEN': ADMIN_TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify({ branch: 'main', commit_message: `out of band ${method}`, ...body }),
      });
      await res.arrayBuffer();
      return res.status;
    },
    count: (method, pattern) => emu.requests.filter((r) => r.method === method && pattern.test(r.path)).length,
    async applyWithEditBetween(between) {
      let out = '';
      const code = await runApply(
        {
          config: [path.join(wd.dir, 'plumb.yaml')],
          json: false,
          autoApprove: false,
          state: path.join(wd.dir, 'state.json'),
          confirm: async () => {
            await between();
            return true;
          },
        },
        { stdout: (s) => (out += s), stderr: (s) => (out += s), isTTY: false, env: { PLUMB_TOKEN: ADMIN_TOKEN }, cwd: wd.dir },
      );
      return { code, out };
    },
    close: () => emu.close(),
  };
  return h;
}
