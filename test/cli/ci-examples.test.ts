/**
 * The CI templates — plumb's CI/CD component (templates/) and the examples (examples/ci) — are
 * valid YAML in the formats their hosts read, and every plumb command line in their scripts is one
 * plumb accepts: each is run with `--help` appended, which exits 0 only when the command and every
 * option exist (an unknown option is a usage error, exit 1).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { main } from '../../src/cli.js';

const ROOT = path.resolve(__dirname, '../..');
const EXAMPLES = path.join(ROOT, 'examples/ci');
const TEMPLATES = path.join(ROOT, 'templates');

/** Every script line of a pipeline document (`script`, `before_script`, `after_script`, `run`). */
function scripts(node: unknown, inScript = false): string[] {
  if (typeof node === 'string') return inScript ? [node] : [];
  if (Array.isArray(node)) return node.flatMap((n) => scripts(n, inScript));
  if (node && typeof node === 'object') {
    return Object.entries(node).flatMap(([k, v]) => scripts(v, inScript || ['script', 'before_script', 'after_script', 'run'].includes(k)));
  }
  return [];
}

/** The arguments of each `plumb …` invocation, up to a shell operator. */
function invocations(text: string): string[][] {
  const out: string[][] = [];
  for (const m of text.matchAll(/(?:^|[\s;&|])plumb ([^\n|&;>]*)/g)) {
    const args = m[1]!.trim().split(/\s+/).filter(Boolean);
    if (args[0] === 'plumb') continue; // "npm install --global plumb-gitops"
    out.push(args);
  }
  return out;
}

async function checkInvocations(calls: string[][], cwd: string): Promise<void> {
  for (const args of calls) {
    let err = '';
    const code = await main([...args, '--help'], { stdout: () => {}, stderr: (s) => void (err += s), isTTY: false, env: {}, cwd });
    expect(code, `plumb ${args.join(' ')}: ${err}`).toBe(0);
  }
}

/** A component template: `spec:` with inputs, `---`, then the jobs; every `$[[ inputs.X ]]` declared. */
function template(file: string): { inputs: Record<string, { default?: unknown; type?: string; options?: unknown[] }>; jobs: Record<string, Record<string, unknown>>; text: string } {
  const text = readFileSync(path.join(TEMPLATES, file), 'utf8');
  const docs = parseAllDocuments(text);
  expect(docs, `${file}: spec, ---, jobs`).toHaveLength(2);
  for (const d of docs) expect(d.errors, file).toEqual([]);
  const spec = docs[0]!.toJS() as { spec: { inputs: Record<string, { default?: unknown }> } };
  const jobs = docs[1]!.toJS() as Record<string, Record<string, unknown>>;
  expect(Object.keys(spec)).toEqual(['spec']);
  const inputs = spec.spec.inputs;
  for (const m of text.matchAll(/\$\[\[\s*inputs\.([a-z_]+)\s*\]\]/g)) expect(Object.keys(inputs), `${file} uses inputs.${m[1]}`).toContain(m[1]);
  return { inputs, jobs, text };
}

describe('the CI/CD component', () => {
  const files = readdirSync(TEMPLATES).filter((f) => f.endsWith('.yml')).sort();

  it('ships validate, plan, apply, drift and the full pipeline', () => {
    expect(files).toEqual(['apply.yml', 'drift.yml', 'full.yml', 'plan.yml', 'validate.yml']);
  });

  it.each(files)('%s is a catalog template whose plumb commands and options all exist', async (file) => {
    const { inputs, jobs } = template(file);
    for (const name of ['config', 'version', 'executable', 'state', 'token_env', 'image', 'instance_url']) expect(Object.keys(inputs)).toContain(name);
    expect(inputs.image!.default).toMatch(/^node:(2[4-9]|[3-9]\d)/);
    const calls = scripts(jobs).flatMap(invocations);
    expect(calls.length).toBeGreaterThan(0);
    await checkInvocations(calls, ROOT);
  });

  it('runs plan and drift with exit 2 allowed, and keeps a readable log beside every machine format', () => {
    const { jobs, inputs } = template('full.yml');
    for (const name of ['read_token_variable', 'apply_token_variable', 'comment_token_variable', 'targets', 'apply_when']) expect(Object.keys(inputs)).toContain(name);
    expect(jobs['plumb-plan']!.allow_failure).toEqual({ exit_codes: [2] });
    expect(jobs['plumb-drift']!.allow_failure).toEqual({ exit_codes: [2] });
    expect(jobs['plumb-drift']!.parallel).toEqual({ matrix: [{ PLUMB_TARGET: '$[[ inputs.targets ]]' }] });
    expect(jobs['plumb-validate']!.artifacts).toMatchObject({ reports: { codequality: 'gl-code-quality-report.json' } });
    expect(jobs['plumb-drift']!.artifacts).toMatchObject({ reports: { junit: 'drift-junit.xml' } });
    expect(jobs['plumb-plan']!.artifacts).toMatchObject({ reports: { terraform: 'plan-report.json' } });
    const all = scripts(jobs).join('\n');
    expect(all).not.toMatch(/\|\| \[ \$\? -eq 2 \]/);
    expect(all).not.toMatch(/--json >/);
    // two tokens: the read_api one for merge requests and drift, the protected one for apply only
    expect(scripts(jobs['plumb-plan']).join('\n')).toContain('inputs.read_token_variable');
    expect(scripts(jobs['plumb-drift']).join('\n')).toContain('inputs.read_token_variable');
    expect(scripts(jobs['plumb-apply']).join('\n')).toContain('inputs.apply_token_variable');
    expect(scripts(jobs['plumb-plan']).join('\n')).not.toContain('apply_token_variable');
  });
});

describe('CI examples', () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yml'));

  it('ships a pipeline for the service and one for GitHub Actions', () => {
    expect(files.sort()).toEqual(['github-actions.yml', 'service-pipeline.yml']);
  });

  it('includes the full component in the service pipeline, with inputs it declares', () => {
    const doc = parse(readFileSync(path.join(EXAMPLES, 'service-pipeline.yml'), 'utf8')) as { include: { component: string; inputs: Record<string, unknown> }[] };
    const [inc] = doc.include;
    const name = /\/([a-z-]+)@[^/]+$/.exec(inc!.component)![1]!;
    expect(existsSync(path.join(TEMPLATES, `${name}.yml`))).toBe(true);
    const { inputs } = template(`${name}.yml`);
    for (const k of Object.keys(inc!.inputs)) expect(Object.keys(inputs)).toContain(k);
  });

  it('github-actions.yml is valid YAML whose plumb commands and options all exist', async () => {
    const doc = parse(readFileSync(path.join(EXAMPLES, 'github-actions.yml'), 'utf8')) as unknown;
    const calls = scripts(doc).flatMap(invocations);
    expect(calls.map((c) => c[0]).sort()).toEqual(expect.arrayContaining(['apply', 'drift', 'plan', 'validate']));
    await checkInvocations(calls, EXAMPLES);
  });
});
