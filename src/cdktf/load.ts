/**
 * The CDKTF front-end: runs a CDKTF app the way cdktf-cli's `synth` does (its `app` command from
 * cdktf.json, in the app's directory, with CDKTF_OUTDIR set; no terraform and no cdktf-cli), reads
 * each stack's cdk.tf.json and hands plumb's resources to the same loader and validator as YAML.
 *
 * Loaded only when a command is given a CDKTF app: the YAML path never imports this module (nor
 * cdktf or constructs, which only the app itself loads).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Diagnostic } from '../diagnostics/index.js';
import { loadDocuments } from '../config/load.js';
import { fileErrorSentence } from '../util/file-error.js';
import { validateLoaded } from '../config/validate.js';
import type { ConfigResult, ValidateOptions } from '../config/validate.js';
import { stackDocuments } from './documents.js';
import type { SynthesizedStack } from './documents.js';

export interface CdktfResult extends ConfigResult {
  /** Milliseconds the app's own synth took (running its `app` command). */
  readonly synthMs: number;
}

/** How long the app may take to synthesize before plumb gives up. */
const SYNTH_TIMEOUT_MS = 5 * 60_000;

function failed(d: Omit<Diagnostic, 'severity'>, synthMs = 0): CdktfResult {
  return { diagnostics: [{ severity: 'error', ...d }], sources: loadDocuments([]), synthMs };
}

/** The last lines of what the app printed, without stack frames, for a failure's detail. */
function tail(text: string, lines = 12): string {
  const all = text.trimEnd().split('\n').filter((l) => !/^\s+at /.test(l));
  return (all.length > lines ? ['…', ...all.slice(-lines)] : all).join('\n');
}

/** Synthesizes the app in `dir` and loads its plumb resources as a configuration. */
export function loadCdktfConfig(dir: string, opts: ValidateOptions = {}): CdktfResult {
  const cwd = opts.cwd ?? process.cwd();
  const env = opts.env ?? process.env;
  const appDir = path.resolve(cwd, dir);
  const shown = path.relative(cwd, path.join(appDir, 'cdktf.json')) || 'cdktf.json';
  let manifest: { app?: unknown; context?: unknown };
  try {
    manifest = JSON.parse(readFileSync(path.join(appDir, 'cdktf.json'), 'utf8')) as typeof manifest;
  } catch (err) {
    return failed({
      code: 'PLUMB_CDKTF_APP',
      summary: err instanceof SyntaxError ? `${shown} is not valid JSON: ${err.message}` : `Cannot read ${shown}: ${fileErrorSentence(err)}`,
      suggestion: 'give the directory of a CDKTF app (the one holding cdktf.json)',
    });
  }
  if (typeof manifest.app !== 'string' || manifest.app.trim() === '') {
    return failed({
      code: 'PLUMB_CDKTF_APP',
      summary: `${shown} has no "app" command`,
      suggestion: 'add "app": "npx tsx main.ts" (the command that synthesizes the app)',
    });
  }
  const outdir = mkdtempSync(path.join(os.tmpdir(), 'plumb-cdktf-out-'));
  try {
    const started = performance.now();
    const run = spawnSync(manifest.app, {
      cwd: appDir,
      shell: true,
      encoding: 'utf8',
      timeout: SYNTH_TIMEOUT_MS,
      env: {
        ...env,
        CDKTF_OUTDIR: outdir,
        CDKTF_CONTEXT_JSON: JSON.stringify(manifest.context ?? {}),
        // cdktf's libraries report to HashiCorp's checkpoint service unless this is set.
        CHECKPOINT_DISABLE: '1',
        // As npm scripts do: the app's own tools (tsx, ts-node) without npx, and the node running plumb.
        PATH: [path.join(appDir, 'node_modules', '.bin'), env.PATH ?? '', path.dirname(process.execPath)].filter(Boolean).join(path.delimiter),
      },
    });
    const synthMs = performance.now() - started;
    if (run.error || run.status !== 0) {
      const why = run.error ? fileErrorSentence(run.error) : run.signal ? `it was stopped by ${run.signal}` : `it exited with status ${run.status}`;
      return failed(
        {
          code: 'PLUMB_CDKTF_SYNTH',
          summary: `The CDKTF app in ${path.dirname(shown) || '.'} failed to synthesize: ${why}`,
          detail: tail(`${run.stderr ?? ''}${run.stdout ?? ''}`) || undefined,
          suggestion: `run \`${manifest.app}\` in ${path.dirname(shown) || '.'} to see the whole error (a TypeScript error in the app shows there)`,
        },
        synthMs,
      );
    }
    const stacks = readStacks(outdir);
    if (!Array.isArray(stacks)) return failed(stacks, synthMs);
    return { ...fromStacks(stacks, appDir, opts), synthMs };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** The stacks listed in the synth output's manifest.json. */
function readStacks(outdir: string): SynthesizedStack[] | Omit<Diagnostic, 'severity'> {
  try {
    const manifest = JSON.parse(readFileSync(path.join(outdir, 'manifest.json'), 'utf8')) as { stacks?: Record<string, { name?: string; synthesizedStackPath?: string }> };
    return Object.entries(manifest.stacks ?? {}).map(([key, s]) => ({
      name: s.name ?? key,
      json: JSON.parse(readFileSync(path.join(outdir, s.synthesizedStackPath ?? path.join('stacks', key, 'cdk.tf.json')), 'utf8')) as Record<string, unknown>,
    }));
  } catch (err) {
    return {
      code: 'PLUMB_CDKTF_SYNTH',
      summary: `The CDKTF app ran but its output cannot be read: ${err instanceof SyntaxError ? err.message : fileErrorSentence(err)}`,
      suggestion: 'make sure the app calls app.synth() and writes to CDKTF_OUTDIR (cdktf 0.21)',
    };
  }
}

/** Synthesized stacks → the validated configuration, with construct paths as the documents' names. */
export function fromStacks(stacks: readonly SynthesizedStack[], appDir: string, opts: ValidateOptions = {}): ConfigResult {
  const cwd = opts.cwd ?? process.cwd();
  const mapped = stackDocuments(stacks, appDir, cwd);
  const sources = loadDocuments(mapped.documents, opts);
  const earlier: Diagnostic[] = [...mapped.located];
  for (const { pointer, ...d } of mapped.pending) {
    const l = sources.locations.get(pointer);
    earlier.push({ ...d, pointer, location: l?.value });
    // The value stays in the configuration as text: checks of it would repeat this problem.
    sources.reported.addSubtree(pointer);
  }
  if (mapped.ignored.length > 0) {
    const n = mapped.ignored.length;
    earlier.push({
      severity: 'info',
      code: 'PLUMB_CDKTF_OTHER_PROVIDERS',
      summary: `Ignored ${n} resource${n === 1 ? '' : 's'} of other providers: ${mapped.ignored.slice(0, 5).join(', ')}${n > 5 ? ', …' : ''}`,
    });
  }
  const files = new Map(mapped.documents.map((d) => [d.file!, d.abs]));
  const result = validateLoaded(sources, files, earlier, opts);
  if (mapped.origins.size === 0) return result;
  // Where the synth metadata carries the construct's creation stack: the app's own line, too.
  const withOrigin = (d: Diagnostic): Diagnostic => {
    const origin = d.location ? mapped.origins.get(d.location.file) : undefined;
    return origin ? { ...d, related: [...(d.related ?? []), { message: `construct ${d.location!.file} is created here`, location: origin }] } : d;
  };
  return { ...result, diagnostics: result.diagnostics.map(withOrigin) };
}
