/**
 * The CI templates in examples/ci are valid YAML, and every plumb command line in them is one plumb
 * accepts: each is run with `--help` appended, which exits 0 only when the command and every option
 * exist (an unknown option is a usage error, exit 1).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main } from '../../src/cli.js';

const DIR = path.resolve(__dirname, '../../examples/ci');

/** Every string in the document (script lines, `run:` steps). */
function strings(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (Array.isArray(node)) return node.flatMap(strings);
  if (node && typeof node === 'object') return Object.values(node).flatMap(strings);
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

describe('CI templates', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.yml'));

  it('ships a pipeline for the service and one for GitHub Actions', () => {
    expect(files.sort()).toEqual(['github-actions.yml', 'service-pipeline.yml']);
  });

  it.each(files)('%s is valid YAML whose plumb commands and options all exist', async (file) => {
    const doc = parse(readFileSync(path.join(DIR, file), 'utf8')) as unknown;
    const calls = strings(doc).flatMap(invocations);
    expect(calls.map((c) => c[0]).sort()).toEqual(expect.arrayContaining(['apply', 'drift', 'plan', 'validate']));
    for (const args of calls) {
      let err = '';
      const code = await main([...args, '--help'], { stdout: () => {}, stderr: (s) => void (err += s), isTTY: false, env: {}, cwd: DIR });
      expect(code, `plumb ${args.join(' ')}: ${err}`).toBe(0);
    }
  });
});
