/**
 * The command line as data (src/commands/*-args.ts): each command's parser returns its arguments and
 * every mistake at once, and every option the documentation shows (a command's --help, README.md,
 * docs/) is one its parser knows, with a value exactly when the documentation gives it one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics/index.js';
import type { Parsed } from '../../src/commands/args.js';
import { VALIDATE_USAGE, parseValidateArgs } from '../../src/commands/validate-args.js';
import { PLAN_USAGE, parsePlanArgs } from '../../src/commands/plan-args.js';
import { APPLY_USAGE, parseApplyArgs } from '../../src/commands/apply-args.js';
import { DRIFT_USAGE, parseDriftArgs } from '../../src/commands/drift-args.js';
import { SHOW_USAGE, parseShowArgs } from '../../src/commands/show-args.js';
import { COMMENT_USAGE, parseCommentArgs } from '../../src/commands/comment-args.js';
import { exportUsage, parseExportArgs } from '../../src/commands/export-args.js';
import { EMULATOR_USAGE, parseEmulatorArgs } from '../../src/commands/emulator-args.js';
import { PROVIDER_USAGE, parseProviderArgs } from '../../src/commands/provider-args.js';
import { builtInExporters } from '../../src/commands/export.js';

// The built-in kinds' exporters (their runtime parts load lazily: src/resources/index.ts).
const EXPORTERS = await builtInExporters();
import { workdir } from '../helpers/cli.js';

const ROOT = path.resolve(__dirname, '../..');

const COMMANDS: Record<string, { usage: string; parse: (argv: readonly string[]) => Parsed<unknown> }> = {
  validate: { usage: VALIDATE_USAGE, parse: parseValidateArgs },
  plan: { usage: PLAN_USAGE, parse: parsePlanArgs },
  apply: { usage: APPLY_USAGE, parse: parseApplyArgs },
  drift: { usage: DRIFT_USAGE, parse: parseDriftArgs },
  show: { usage: SHOW_USAGE, parse: parseShowArgs },
  comment: { usage: COMMENT_USAGE, parse: parseCommentArgs },
  export: { usage: exportUsage(EXPORTERS), parse: (argv) => parseExportArgs(argv, EXPORTERS) },
  emulator: { usage: EMULATOR_USAGE, parse: parseEmulatorArgs },
  provider: { usage: PROVIDER_USAGE, parse: parseProviderArgs },
};

/** Mistakes in which options there are and whether they take a value (not in the values themselves). */
const SHAPE = /^Unknown option|needs a value$|takes no value$/;
const shapeMistakes = (ds: readonly Diagnostic[]): string[] => ds.map((d) => d.summary).filter((s) => SHAPE.test(s.replace(/ of plumb [a-z]+ /, ' ').replace(/ for plumb [a-z]+$/, '')));

/** The options a usage text lists: `  -c, --config PATH     …` → config takes a value (one space before it; the description follows two or more). */
function helpOptions(usage: string): { name: string; value: boolean }[] {
  return [...usage.matchAll(/^ {2}(?:-[a-z], )?--([a-z][a-z-]*)( \S+)?/gm)].map((m) => ({ name: m[1]!, value: m[2] !== undefined }));
}

/** Every `plumb COMMAND … --option [VALUE]` in README.md and docs/*.md, inside backquotes or code blocks. */
function documentedOptions(): { file: string; command: string; name: string; value: boolean | undefined }[] {
  const files = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const out: { file: string; command: string; name: string; value: boolean | undefined }[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const code = [...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n')).concat([...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!));
    for (const line of code) {
      for (const m of line.matchAll(/(?:^|[\s$(])plumb ([a-z]+)((?: +[^\s|&;>#]+)*)/g)) {
        const command = m[1]!;
        if (!(command in COMMANDS)) continue;
        const words = m[2]!.trim().split(/ +/);
        words.forEach((w, i) => {
          const o = /^--([a-z][a-z-]*)(=.*)?$/.exec(w);
          if (!o) return;
          const next = words[i + 1];
          // A value when written `--opt=V`, or followed by a word that is not an option; unknown at the end of a line.
          const value = o[2] !== undefined ? true : next === undefined ? undefined : !next.startsWith('-');
          out.push({ file, command, name: o[1]!, value });
        });
      }
    }
  }
  return out;
}

/** Options docs show for a registry other than the built-in one. */
const NOT_BUILT_IN: Record<string, string> = { 'export --maintenance': 'the flag of the fifth kind test/resources/fifth-kind.test.ts registers (docs/architecture.md)' };

/** Whether `--name` parses for `command`, with a value when `value`: no mistake of shape. */
function parses(command: string, name: string, value: boolean | undefined): string[] {
  const { parse } = COMMANDS[command]!;
  if (value === undefined) {
    // At the end of a line the documentation does not say: it must parse one way or the other.
    const bare = shapeMistakes(parse([`--${name}`]).diagnostics);
    return bare.length === 0 ? [] : shapeMistakes(parse([`--${name}`, 'x']).diagnostics);
  }
  return shapeMistakes(parse(value ? [`--${name}`, 'x'] : [`--${name}`]).diagnostics);
}

describe('every documented option parses', () => {
  for (const [command, { usage }] of Object.entries(COMMANDS)) {
    it(`knows every option plumb ${command} --help lists, each with a value exactly when the help gives one`, () => {
      const options = helpOptions(usage);
      expect(options.length).toBeGreaterThan(0);
      for (const o of options) expect([o.name, parses(command, o.name, o.value)]).toEqual([o.name, []]);
    });
  }

  it('knows every option README.md and docs/ show on a plumb command line', () => {
    const documented = documentedOptions();
    expect(documented.length).toBeGreaterThan(30);
    const wrong = documented.filter((d) => !(`${d.command} --${d.name}` in NOT_BUILT_IN) && parses(d.command, d.name, d.value).length > 0).map((d) => `${d.file}: plumb ${d.command} --${d.name}${d.value ? ' VALUE' : ''}`);
    expect(wrong).toEqual([]);
  });

  it('finds an option the parser does not know (so the checks above can fail)', () => {
    expect(parses('validate', 'jsn', false)).toEqual(['Unknown option "--jsn" for plumb validate']);
    expect(parses('plan', 'out', false)).toEqual(['Option --out of plumb plan needs a value']);
    expect(parses('plan', 'json', true)).toEqual([]); // a following word is then a path
    expect(parses('show', 'markdown', undefined)).toEqual([]);
  });
});

describe('every mistake on the command line at once', () => {
  it('plumb validate with two usage mistakes reports both', async () => {
    const w = workdir();
    const r = await w.run(['validate', '--jsn', '--concurrency', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_USAGE]: Unknown option "--jsn" for plumb validate');
    expect(r.stderr).toContain('error[PLUMB_USAGE]: --concurrency must be a whole number from 1 to 64, not "0"');
  });

  it('puts them all in the error document with --json', async () => {
    const r = await workdir().run(['validate', '--json', '--format', 'xml', '--unavailable-secrets', 'maybe', '--now']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { error: string; diagnostics: { code: string; summary: string }[] };
    expect(doc.error).toBe('PLUMB_USAGE');
    expect(doc.diagnostics.map((d) => d.summary).sort()).toEqual(['--format must be human, json or codequality, not "xml"', '--unavailable-secrets must be skip or error, not "maybe"', 'Option --now of plumb validate needs a value'].sort());
  });

  it('reports each mistake of plan, apply and export, not only the first', () => {
    expect(parsePlanArgs(['--max-changes', '0', '--target', 'a..b', '--allow-url', 'ftp://x', '--withhold-matches', '--show-matches']).diagnostics).toHaveLength(4);
    expect(parseApplyArgs(['a.json', 'b.json', '--lock-timeout', 'soon', '--frob']).diagnostics.map((d) => d.summary)).toEqual([
      'Unknown option "--frob" for plumb apply',
      'plumb apply takes one plan file, not 2 (a.json, b.json)',
      '--lock-timeout must be a duration such as 0, 30s, 5m or 1h, not "soon"',
    ]);
    expect(parseExportArgs(['stray', '--sink-dir', '/abs', '--concurrency', '99'], EXPORTERS).diagnostics).toHaveLength(4);
  });

  it('shows the usage for --help without judging the values, but not past an unknown option', () => {
    expect(parseValidateArgs(['--help', '--concurrency', '0']).diagnostics).toEqual([]);
    expect(parseValidateArgs(['--help', '--jsn']).diagnostics).toHaveLength(1);
  });
});
