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

  it.each(files)('%s installs the plumb it was released with, and never runs printenv without a name', (file) => {
    const { inputs, jobs, text } = template(file);
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(inputs.version!.default, `${file}: the version input defaults to package.json's version`).toBe(version);
    expect(Object.keys(inputs)).toContain('executable_sha256');
    // `printenv` with no name (an empty input) prints every variable of the job, tokens included
    const all = scripts(jobs).join('\n');
    for (const m of all.matchAll(/printenv\b(.{0,40})/g)) expect(m[1], `${file}: printenv ${m[1]}`).toMatch(/^ "\$PLUMB_[A-Z_]+_VARIABLE"/);
    expect(text).not.toMatch(/printenv \$\[\[/);
    // `export =VALUE` (an empty token_env) makes the shell print VALUE, the token, in its error
    expect(text).not.toMatch(/export \$\[\[/);
  });

  it.each(files)('%s sets no global stages and takes every stage from an input', (file) => {
    const { jobs, inputs } = template(file);
    expect(Object.keys(jobs)).not.toContain('stages');
    for (const [name, job] of Object.entries(jobs)) {
      if (name.startsWith('.')) continue;
      const m = /^\$\[\[ inputs\.([a-z_]+) \]\]$/.exec(String(job.stage));
      expect(m, `${file}: ${name}'s stage is an input`).not.toBeNull();
      expect(['build', 'test', 'deploy'], `${file}: ${name}'s default stage is one of the service's default stages`).toContain(inputs[m![1]!]!.default);
    }
  });

  it('fails the scheduled drift by default; an input keeps drift a warning', () => {
    for (const file of ['drift.yml', 'full.yml']) {
      const { jobs, inputs } = template(file);
      expect(inputs.drift_alert).toMatchObject({ default: 'fail', options: ['fail', 'warn'] });
      const script = scripts(jobs['plumb-drift']).join('\n');
      expect(script).toContain('[ "${status:-0}" -eq 2 ] && [ "$PLUMB_DRIFT_ALERT" != warn ]');
      expect((jobs['plumb-drift']!.variables as Record<string, string>).PLUMB_DRIFT_ALERT).toBe('$[[ inputs.drift_alert ]]');
    }
  });

  it('lets the default branch apply the rest of a plan with blocked matches: the plan job goes on when plan.json was written', () => {
    for (const file of ['apply.yml', 'full.yml']) {
      const script = scripts(template(file).jobs['plumb-plan-default-branch']).join('\n');
      // plan exits 1 for a blocked match but writes the plan of the rest; one that cannot be applied writes none
      expect(script, file).toContain('plumb plan "$PLUMB_CONFIG" --out plan.json --markdown plan.md || [ -s plan.json ]');
    }
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
    // The HTML page, linked from the merge request.
    expect(scripts(jobs['plumb-plan']).join('\n')).toContain('--html plan.html');
    expect(jobs['plumb-plan']!.artifacts).toMatchObject({ expose_as: 'plumb plan', paths: expect.arrayContaining(['plan.html']) });
    expect(scripts(jobs['plumb-drift']).join('\n')).toContain('--html drift.html');
    expect(jobs['plumb-drift']!.artifacts).toMatchObject({ paths: ['drift.html'] });
    const all = scripts(jobs).join('\n');
    expect(all).not.toMatch(/\|\| \[ \$\? -eq 2 \]/);
    expect(all).not.toMatch(/--json >/);
    // two tokens: the read_api one for merge requests and drift, the protected one for apply only
    const tokenOf = (job: string) => (jobs[job]!.variables as Record<string, string>).PLUMB_TOKEN_VARIABLE;
    expect(tokenOf('plumb-plan')).toBe('$[[ inputs.read_token_variable ]]');
    expect(tokenOf('plumb-drift')).toBe('$[[ inputs.read_token_variable ]]');
    expect(tokenOf('plumb-apply')).toBe('$[[ inputs.apply_token_variable ]]');
    expect(tokenOf('plumb-plan-default-branch')).toBe('$[[ inputs.apply_token_variable ]]');
    expect(JSON.stringify(jobs['plumb-plan'])).not.toContain('apply_token_variable');
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
