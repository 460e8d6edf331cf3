/**
 * The CDKTF front-end: runs a CDKTF app the way cdktf-cli's `synth` does (its `app` command from
 * cdktf.json, in the app's directory, with CDKTF_OUTDIR set; no terraform and no cdktf-cli), reads
 * each stack's cdk.tf.json and hands plumb's resources, as documents already parsed, to the same
 * configuration pipeline as YAML, from its merge stage on (src/config/pipeline/).
 *
 * Loaded only when a command is given a CDKTF app: the YAML path never imports this module (nor
 * cdktf or constructs, which only the app itself loads).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { nodeOs } from '../util/node-os.js';
import path from 'node:path';
import type { Diagnostic, SourceLocation } from '../diagnostics/index.js';
import { mergeOptions, noSources } from '../config/load.js';
import { LocationIndex } from '../config/locations.js';
import { mergeConfig } from '../config/pipeline/merge.js';
import type { ParsedConfig, ParsedDocument } from '../config/pipeline/parse.js';
import { fileErrorSentence } from '../util/file-error.js';
import { validateLoaded } from '../config/validate.js';
import { configRoot, secretRootsFrom } from '../config/files.js';
import type { FileRoots } from '../config/files.js';
import type { ConfigResult, ValidateOptions } from '../config/validate.js';
import { disagreementKey, stackDocuments } from './documents.js';
import type { StackDocument, SynthesizedStack } from './documents.js';

export interface CdktfResult extends ConfigResult {
  /** Milliseconds the app's own synth took (running its `app` command). */
  readonly synthMs: number;
}

/** How long the app may take to synthesize before plumb stops it, by default (`--cdktf-timeout`). */
export const DEFAULT_SYNTH_TIMEOUT_MS = 120_000;

export interface CdktfOptions extends ValidateOptions {
  /** `--cdktf-timeout` in milliseconds (default {@link DEFAULT_SYNTH_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
}

function failed(d: Omit<Diagnostic, 'severity'>, synthMs = 0): CdktfResult {
  return { diagnostics: [{ severity: 'error', ...d }], sources: noSources(), synthMs };
}

/** The stacks' documents as the parse stage would have given them (src/config/pipeline/parse.ts). */
function parsedDocuments(documents: readonly StackDocument[], roots: FileRoots): ParsedConfig {
  const locations = new LocationIndex();
  const parsed: ParsedDocument[] = documents.map(({ file, abs, text, value }) => {
    const source = { file, abs, text };
    return { file, abs, fileIndex: locations.addFile(source), roots, source, parsed: value };
  });
  return {
    documents: parsed,
    texts: new Map(documents.map((d) => [d.file, d.text])),
    locations,
    files: documents.map((d) => d.file),
    roots: new Map(documents.map((d) => [d.file, roots])),
    paths: new Map(documents.map((d) => [d.file, d.abs])),
    diagnostics: [],
  };
}

/** The last lines of what the app printed, without stack frames, for a failure's detail. */
function tail(text: string, lines = 12): string {
  const all = text.trimEnd().split('\n').filter((l) => !/^\s+at /.test(l));
  return (all.length > lines ? ['…', ...all.slice(-lines)] : all).join('\n');
}

/**
 * The environment the app runs with: an allow-list, never plumb's whole environment. The app is
 * code from the repository (a merge request can change it), so it gets what a build needs (PATH,
 * HOME, locale, temporary directories, NODE_*, npm_config_*, CDKTF_*) plus the names listed in
 * PLUMB_CDKTF_ENV, and never a variable whose name says it holds a credential (PLUMB_TOKEN, any
 * *TOKEN*, *SECRET*, *PASSWORD*, *CREDENTIAL*, *PRIVATE*, *_KEY) nor any PLUMB_* variable. The
 * instance's token variable is therefore absent whatever `token_env` names. docs/cdktf.md#environment.
 */
export function appEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const extra = listedNames(env);
  const allowed = (name: string) =>
    extra.has(name) ||
    ALLOWED_NAMES.has(name.toUpperCase()) ||
    /^(LC_|NODE_|NPM_CONFIG_|CDKTF_|XDG_)/i.test(name);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !allowed(name) || CREDENTIAL_NAME.test(name) || /^PLUMB_/i.test(name)) continue;
    out[name] = value;
  }
  return out;
}

/** The names PLUMB_CDKTF_ENV lists (comma- or space-separated). */
function listedNames(env: NodeJS.ProcessEnv): Set<string> {
  return new Set((env.PLUMB_CDKTF_ENV ?? '').split(/[,\s]+/).filter(Boolean));
}

/**
 * PLUMB_CDKTF_ENV naming a secret, before the app runs: a name that says it holds a credential or
 * a PLUMB_* variable (never passed, which the operator must hear rather than see the app fail), or a
 * TF_VAR_* variable (what plumb reads as the app's sensitive variables after the synth; the app is
 * never to see them). The app is not run.
 */
function listedSecretNames(env: NodeJS.ProcessEnv): Omit<Diagnostic, 'severity'> | undefined {
  const bad = [...listedNames(env)].filter((n) => CREDENTIAL_NAME.test(n) || /^(PLUMB_|TF_VAR_)/i.test(n));
  if (bad.length === 0) return undefined;
  return {
    code: 'PLUMB_CDKTF_ENV',
    summary: `PLUMB_CDKTF_ENV lists ${bad.join(', ')}, which ${bad.length === 1 ? 'holds' : 'hold'} a secret the CDKTF app must not receive; the app was not run`,
    detail: 'The app is code from the repository (a merge request can change it). A name containing TOKEN, SECRET, PASSW, CREDENTIAL, PRIVATE or AUTH, ending in _KEY, or starting with PLUMB_ is never passed to it; TF_VAR_* variables are secret variables plumb reads itself after the synth.',
    suggestion: `remove ${bad.join(', ')} from PLUMB_CDKTF_ENV (docs/cdktf.md#environment); a secret goes into the app as a sensitive variable (docs/cdktf.md#secrets)`,
  };
}

/**
 * PLUMB_CDKTF_ENV having handed the app a variable whose value the configuration it produced uses
 * as a secret (a token_env, an `${env:…}` of a secret, a TF_VAR_ read): known only after the synth,
 * so it is an error then, and the variable must be taken off the list (and the secret replaced if
 * the app is not trusted).
 */
function handedSecrets(env: NodeJS.ProcessEnv, passed: NodeJS.ProcessEnv, result: ConfigResult): Diagnostic[] {
  const handed = [...listedNames(env)].filter((n) => {
    const v = passed[n];
    return v !== undefined && v !== '' && result.sources.secrets.redact(v) !== v;
  });
  if (handed.length === 0) return [];
  return [
    {
      severity: 'error',
      code: 'PLUMB_CDKTF_ENV',
      summary: `PLUMB_CDKTF_ENV handed ${handed.join(', ')} to the CDKTF app, and the configuration uses ${handed.length === 1 ? 'its value' : 'their values'} as a secret (an instance's token_env, a secret setting)`,
      detail: 'The app is code from the repository; a secret it receives can end up anywhere it writes. plumb reads the variables a configuration interpolates itself, after the synth.',
      suggestion: `remove ${handed.join(', ')} from PLUMB_CDKTF_ENV, and replace the secret if the app's code is not trusted (docs/cdktf.md#environment)`,
    },
  ];
}

const ALLOWED_NAMES = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR', 'TMP', 'TEMP', 'LANG', 'LANGUAGE', 'TZ', 'TERM', 'CI', 'SYSTEMROOT', 'COMSPEC', 'PATHEXT', 'WINDIR', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA']);
const CREDENTIAL_NAME = /TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|_KEY$|^KEY$|AUTH/i;

/** Where `"app"` is written in cdktf.json, for a located error. */
function appLocation(text: string, file: string): SourceLocation {
  const at = text.indexOf('"app"');
  if (at < 0) return { file, line: 1, column: 1 };
  const before = text.slice(0, at).split('\n');
  return { file, line: before.length, column: before.at(-1)!.length + 1 };
}

interface Run {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly error?: Error;
  readonly timedOut: boolean;
  readonly output: string;
}

/** What the app printed that plumb keeps: the last of it, for a failure's detail. */
const OUTPUT_KEPT = 64 * 1024;

/**
 * Runs the app's command through the shell in its own process group; past the timeout the whole
 * group is killed (a shell's children too), and so is anything it left running once it exits.
 */
function runApp(command: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    let output = '';
    let timedOut = false;
    let settled = false;
    const keep = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > OUTPUT_KEPT * 2) output = output.slice(-OUTPUT_KEPT);
    };
    const child = spawn(command, { cwd, env, shell: true, detached: process.platform !== 'win32', stdio: ['ignore', 'pipe', 'pipe'] });
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        if (process.platform === 'win32') child.kill('SIGKILL');
        else process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const onExitOfPlumb = () => killGroup();
    process.once('exit', onExitOfPlumb);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const finish = (r: Omit<Run, 'output' | 'timedOut'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      process.removeListener('exit', onExitOfPlumb);
      // Whatever the app left running in its group goes with it; its pipes are not waited on.
      killGroup();
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({ ...r, timedOut, output: output.slice(-OUTPUT_KEPT) });
    };
    child.on('error', (error) => finish({ status: null, signal: null, error }));
    child.on('exit', (status, signal) => {
      // Let the pipes drain briefly (the last lines of an error), without waiting on a grandchild holding them.
      const grace = setTimeout(() => finish({ status, signal }), 200);
      child.on('close', () => {
        clearTimeout(grace);
        finish({ status, signal });
      });
    });
  });
}

/** Synthesizes the app in `dir` and loads its plumb resources as a configuration. */
export async function loadCdktfConfig(dir: string, opts: CdktfOptions): Promise<CdktfResult> {
  const cwd = opts.cwd ?? process.cwd();
  const env = opts.env ?? process.env;
  const appDir = path.resolve(cwd, dir);
  const shown = path.relative(cwd, path.join(appDir, 'cdktf.json')) || 'cdktf.json';
  const timeoutMs = opts.timeoutMs ?? DEFAULT_SYNTH_TIMEOUT_MS;
  let manifest: { app?: unknown; context?: unknown };
  let manifestText = '';
  try {
    manifestText = readFileSync(path.join(appDir, 'cdktf.json'), 'utf8');
    manifest = JSON.parse(manifestText) as typeof manifest;
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
  const listed = listedSecretNames(env);
  if (listed) return failed(listed);
  const outdir = mkdtempSync(path.join(nodeOs().tmpdir(), 'plumb-cdktf-out-'));
  try {
    const started = performance.now();
    const appEnv = appEnvironment(env);
    const run = await runApp(manifest.app, appDir, {
      ...appEnv,
      CDKTF_OUTDIR: outdir,
      CDKTF_CONTEXT_JSON: JSON.stringify(manifest.context ?? {}),
      // cdktf's libraries report to HashiCorp's checkpoint service unless this is set.
      CHECKPOINT_DISABLE: '1',
      // As npm scripts do: the app's own tools (tsx, ts-node) without npx, and the node running plumb.
      PATH: [path.join(appDir, 'node_modules', '.bin'), appEnv.PATH ?? '', path.dirname(process.execPath)].filter(Boolean).join(path.delimiter),
    }, timeoutMs);
    const synthMs = performance.now() - started;
    const where = path.dirname(shown) || '.';
    if (run.timedOut) {
      return failed(
        {
          code: 'PLUMB_CDKTF_SYNTH',
          summary: `The CDKTF app in ${where} did not finish synthesizing within ${timeoutMs / 1000} s; plumb stopped it and every process it started`,
          detail: tail(run.output) || undefined,
          suggestion: `run \`${manifest.app}\` in ${where} to see where it waits, or give more time with --cdktf-timeout SECONDS`,
          location: appLocation(manifestText, shown),
        },
        synthMs,
      );
    }
    if (run.error || run.status !== 0) {
      const why = run.error ? fileErrorSentence(run.error) : run.signal ? `it was stopped by ${run.signal}` : `it exited with status ${run.status}`;
      return failed(
        {
          code: 'PLUMB_CDKTF_SYNTH',
          summary: `The CDKTF app in ${where} failed to synthesize: ${why}`,
          detail: tail(run.output) || undefined,
          suggestion: `run \`${manifest.app}\` in ${where} to see the whole error (a TypeScript error in the app shows there)`,
        },
        synthMs,
      );
    }
    const stacks = readStacks(outdir);
    if (!Array.isArray(stacks)) return failed(stacks, synthMs);
    const result = fromStacks(stacks, appDir, opts);
    const handed = handedSecrets(env, appEnv, result);
    if (handed.length === 0) return { ...result, synthMs };
    return { diagnostics: [...handed, ...result.diagnostics], sources: result.sources, synthMs };
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
export function fromStacks(stacks: readonly SynthesizedStack[], appDir: string, opts: ValidateOptions): ConfigResult {
  const cwd = opts.cwd ?? process.cwd();
  const mapped = stackDocuments(stacks, appDir, cwd, opts.kinds.terraformShapes, opts.kinds.pointers);
  // The documents are data already: they enter the pipeline at the parse stage's output.
  const roots: FileRoots = { root: opts.root ?? configRoot(appDir, cwd), secretRoots: secretRootsFrom(opts.env ?? process.env) };
  const sources = mergeConfig(parsedDocuments(mapped.documents, roots), mergeOptions(opts));
  // Two constructs stating a project's delivery differently: the merge stage's duplicate, in the CDKTF reader's words.
  sources.diagnostics.splice(0, sources.diagnostics.length, ...sources.diagnostics.map((d) => {
    const words = d.pointer !== undefined && d.location ? mapped.disagreements.get(disagreementKey(d.pointer, d.location.file)) : undefined;
    if (!words) return d;
    const { first, ...rest } = words;
    return { ...d, ...rest, related: (d.related ?? []).map((r) => ({ ...r, message: `construct ${first} states it here` })) };
  }));
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
  const files = new Map(mapped.documents.map((d) => [d.file, d.abs]));
  const result = validateLoaded(sources, files, earlier, opts);
  if (mapped.origins.size === 0) return result;
  // Where the synth metadata carries the construct's creation stack: the app's own line, too.
  const withOrigin = (d: Diagnostic): Diagnostic => {
    const origin = d.location ? mapped.origins.get(d.location.file) : undefined;
    return origin ? { ...d, related: [...(d.related ?? []), { message: `construct ${d.location!.file} is created here`, location: origin }] } : d;
  };
  return { ...result, diagnostics: result.diagnostics.map(withOrigin) };
}
