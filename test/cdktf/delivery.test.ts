/**
 * A file's `delivery` block in a CDKTF app (issue 32 item 7, docs/cdktf.md#file-delivery): plumb
 * reads the synth output, so the files of one project become one merge request (or one commit per
 * branch) exactly as in YAML; two constructs stating different deliveries for one project are an
 * error located at both. Needs `npm run build` (the app imports plumb-gitops/cdktf).
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, PROJECT, fileHarness } from '../resources/repository-files/helpers.js';
import type { FileHarness } from '../resources/repository-files/helpers.js';
import { appSource, cdktfApp } from './helpers.js';

let h: FileHarness | undefined;
afterEach(async () => {
  await h?.close();
  if (h) rmSync(h.wd.dir, { recursive: true, force: true });
  h = undefined;
});

/** An app of stack `local` on the emulator, with the two files' delivery blocks as TypeScript text. */
function app(url: string, a: string, b: string): string {
  return cdktfApp({
    'main.ts': appSource(
      'local',
      `new provider.PlumbProvider(stack, 'plumb', { url: ${JSON.stringify(url)}, tokenEnv: 'PLUMB_TOKEN' });
new repositoryFile.RepositoryFile(stack, 'codeowners', { project: ${JSON.stringify(PROJECT)}, filePath: 'CODEOWNERS', content: '* @platform\\n', delivery: ${a} });
new repositoryFile.RepositoryFile(stack, 'readme', { project: ${JSON.stringify(PROJECT)}, filePath: 'README.md', content: 'hello, fleet\\n', delivery: ${b} });`,
    ),
  });
}

describe('delivery of a CDKTF app through plumb apply', () => {
  it('puts two files of a project with merge_request delivery in one merge request, the default branch untouched', async () => {
    h = await fileHarness({ projects: [{ path_with_namespace: PROJECT, default_branch: 'main', protected_branches: ['main'], files: { 'README.md': 'hello\n' } }] });
    const mr = `{ mergeRequest: { labels: ['plumb'] } }`;
    const dir = app(h.emu.url, mr, mr);
    const r = await h.run(['apply', '--cdktf', dir, '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const res = await fetch(`${h.emu.url}/api/v4/merge_requests?scope=all&state=opened`, { headers: { 'PRIVATE-TOKEN': ADMIN_TOKEN } });
    const mrs = (await res.json()) as { source_branch: string; target_branch: string; labels: string[]; description: string }[];
    expect(mrs).toHaveLength(1);
    expect(mrs[0]).toMatchObject({ source_branch: 'plumb/local', target_branch: 'main', labels: ['plumb'] });
    expect(mrs[0]!.description).toContain('CODEOWNERS');
    expect(mrs[0]!.description).toContain('README.md');
    const p = h.emu.state.projects.find((x) => x.pathWithNamespace === PROJECT)!;
    const main_ = p.repo.branchHead('main')!;
    expect(main_.files.get('README.md')!.data.toString()).toBe('hello\n');
    expect(main_.files.has('CODEOWNERS')).toBe(false);
    // One commit on top of main holds both files.
    const head = p.repo.branchHead('plumb/local')!;
    expect(head.parentIds).toEqual([main_.id]);
    expect(head.files.get('CODEOWNERS')!.data.toString()).toBe('* @platform\n');
    expect(head.files.get('README.md')!.data.toString()).toBe('hello, fleet\n');
  });

  it('refuses two files of one project stating different deliveries, with an error located at both constructs', async () => {
    h = await fileHarness();
    const dir = app(h.emu.url, `{ mergeRequest: { labels: ['plumb'] } }`, `{ commit: { skipCi: true } }`);
    const r = await h.run(['plan', '--cdktf', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_CDKTF_DELIVERY_MISMATCH]: Constructs local/codeowners and local/readme state the delivery of project "platform/app" differently');
    expect(r.stderr).toMatch(/--> local\/readme:\d+:\d+/);
    expect(r.stderr).toMatch(/construct local\/codeowners states it here[\s\S]*local\/codeowners:\d+:\d+/);
    // A configuration error: the instance is not even read.
    expect(h.emu.requests).toEqual([]);
  });
});
