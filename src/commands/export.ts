/**
 * `plumb export`: reads a live instance and writes a configuration in plumb's format, ready to
 * commit (docs/export.md). Each kind contributes its own part (`EXPORTERS`, src/resources/index.ts);
 * this module only connects, asks each kind, and assembles one YAML document with sorted keys and
 * comments, so the same instance always gives the same text.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Document, isMap, isScalar } from 'yaml';
import type { Node, Pair } from 'yaml';
import { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { Diagnostic } from '../diagnostics/index.js';
import { renderDiagnosticsHuman } from '../diagnostics/render.js';
import type { LoadedSources } from '../config/load.js';
import type { ExportEntry, ExportEnv, ExportFile, ExportRequest } from '../engine/export.js';
// The configuration side first, as in reconcile.ts: the kinds' config modules must finish loading
// before the kinds' providers (which import them) are evaluated.
import { loadConfiguration } from './config-source.js';
import { EXPORTERS } from '../resources/index.js';
import { parseNow } from './now.js';
import type { Io } from './output.js';
import { useColor } from './output.js';

export interface ExportFlags extends ExportRequest {
  /** `-c`: an existing configuration whose instance (url, token_env, CA) to read. */
  readonly config: readonly string[];
  readonly cdktf?: string;
  /** With `-c`, which instance; without, the name the exported instance gets (default `main`). */
  readonly instance?: string;
  readonly instanceUrl?: string;
  readonly tokenEnv?: string;
  readonly out: string;
  readonly now?: string;
  readonly json: boolean;
  readonly concurrency?: number;
}

interface Target {
  readonly name: string;
  readonly url: string;
  readonly tokenEnv: string;
  readonly caBundle?: string;
  readonly allowInsecureHttp: boolean;
  /** With `-c`: the secret settings it declares as a plain `${env:NAME}`, by setting name. */
  readonly settingEnv?: ReadonlyMap<string, string>;
}

export const EXPORT_FILE = 'plumb.yaml';

export async function runExport(flags: ExportFlags, io: Io): Promise<number> {
  const fail = (d: Omit<Diagnostic, 'severity'>): number => {
    const diag: Diagnostic = { severity: 'error', ...d };
    if (flags.json) io.stdout(JSON.stringify({ error: d.code, diagnostics: [{ severity: 'error', code: d.code, summary: d.summary, suggestion: d.suggestion }] }) + '\n');
    io.stderr(renderDiagnosticsHuman([diag], new Map(), { color: useColor(io) }));
    return 1;
  };
  const now = parseNow(flags.now, io.env);
  if (!(now instanceof Date)) return fail(now);
  const today = now.toISOString().slice(0, 10);

  const target = await findTarget(flags, io, today);
  if (typeof target === 'number') return target;
  if ('summary' in target) return fail(target);
  const token = io.env[target.tokenEnv];
  if (!token) {
    return fail({
      code: 'PLUMB_TOKEN_ENV_MISSING',
      summary: `The environment variable ${target.tokenEnv} (the token to read ${target.url} with) is not set`,
      suggestion: `export ${target.tokenEnv}=… (an administrator's token with read_api, or api)`,
    });
  }
  let client: ApiClient;
  try {
    client = new ApiClient({
      baseUrl: target.url,
      token,
      caBundle: target.caBundle ? readFileSync(target.caBundle, 'utf8') : undefined,
      allowInsecureHttp: target.allowInsecureHttp,
      onWarning: (m) => io.stderr(`warning: ${m}\n`),
      ...(flags.concurrency !== undefined && { concurrency: flags.concurrency }),
    });
  } catch (err) {
    return fail({ code: 'PLUMB_CLIENT', summary: err instanceof Error ? err.message : String(err), suggestion: 'check the instance URL (https://…, or http:// on loopback)' });
  }

  const entries: ExportEntry[] = [];
  const env: ExportEnv[] = [];
  const files: ExportFile[] = [];
  const directories = new Set<string>();
  try {
    const request: ExportRequest = { ...flags, ...(target.settingEnv && { settingEnv: target.settingEnv }) };
    const results = await Promise.all(EXPORTERS.filter((e) => e.wanted(request)).map((e) => e.export({ client, today, request })));
    for (const r of results) {
      entries.push(...r.entries);
      env.push(...(r.env ?? []));
      files.push(...(r.files ?? []));
      r.directories?.forEach((d) => directories.add(d));
      r.notes?.forEach((n) => io.stderr(`note: ${n}\n`));
    }
  } catch (err) {
    if (err instanceof ApiError) {
      const missing = err.status === 404 ? notFoundSubject(err.path) : undefined;
      if (missing) {
        return fail({
          code: err.code,
          summary: `Not found on the instance: ${missing}`,
          suggestion: 'check the name on the command line (paths as the instance shows them, e.g. platform/app), and that the token can see it',
        });
      }
      return fail({
        code: err.code,
        summary: `Reading the instance failed: ${err.method} ${safeDecode(err.path)}: ${err.message}`,
        suggestion: err.status === 404 ? 'check the group or project named on the command line (and that the token can see it)' : 'check the token (an administrator\'s, with read_api or api) and the instance URL',
      });
    }
    throw err;
  } finally {
    await client.close();
  }

  env.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  const text = renderExport(target, entries, env);
  const out = path.resolve(io.cwd, flags.out);
  mkdirSync(out, { recursive: true });
  for (const d of [...directories].sort()) mkdirSync(path.join(out, d), { recursive: true, mode: 0o700 });
  for (const f of files) {
    const file = path.join(out, f.path);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, f.content);
  }
  writeFileSync(path.join(out, EXPORT_FILE), text);

  const counts = countEntries(entries);
  if (flags.json) {
    io.stdout(JSON.stringify({ out: path.join(flags.out, EXPORT_FILE), ...counts, files: files.map((f) => f.path), env: env.map((e) => e.name) }) + '\n');
  } else {
    io.stdout(
      `Exported ${target.url} to ${path.join(flags.out, EXPORT_FILE)}: ${counts.settings} setting(s), ${counts.tokens} token(s) in ${counts.groups} group(s), ` +
        `${counts.repositoryFiles} file(s), ${counts.pages} Pages block(s).\n`,
    );
    if (env.length > 0) io.stdout(`It reads ${env.length} secret(s) from the environment: ${env.map((e) => e.name).join(', ')}.\n`);
    if (counts.tokens > 0 && flags.sinkDir === undefined) io.stdout('Each token needs a sink before the configuration validates: see the TODO comments.\n');
  }
  return 0;
}

/** The instance to read: from `-c` (its url, token_env, CA), or `--instance-url` and `--token-env`. */
async function findTarget(flags: ExportFlags, io: Io, today: string): Promise<Target | Omit<Diagnostic, 'severity'> | number> {
  const usage = (summary: string, suggestion: string): Omit<Diagnostic, 'severity'> => ({ code: 'PLUMB_USAGE', summary, suggestion });
  if (flags.config.length > 0 || flags.cdktf !== undefined) {
    if (flags.instanceUrl !== undefined) return usage('--instance-url cannot be combined with -c (the configuration names the instance)', 'give either -c PATH [--instance NAME] or --instance-url URL --token-env NAME');
    const loaded = await loadConfiguration(flags.config, flags.cdktf, { env: io.env, cwd: io.cwd, today });
    if (!loaded.config) {
      io.stderr(loaded.sources.secrets.redact(renderDiagnosticsHuman(loaded.diagnostics, loaded.sources.texts, { color: useColor(io) })));
      return 1;
    }
    const instances = loaded.config.instances.filter((i) => flags.instance === undefined || i.name === flags.instance);
    if (instances.length !== 1) {
      const names = loaded.config.instances.map((i) => i.name).join(', ');
      return usage(
        instances.length === 0 ? `The configuration has no instance "${flags.instance}" (it has ${names})` : `The configuration has ${instances.length} instances (${names}); export reads one`,
        'choose one with --instance NAME',
      );
    }
    const i = instances[0]!;
    const settingEnv = new Map<string, string>();
    for (const [name, d] of i.settings) {
      const ref = d.secret ? envReference(loaded.sources, d.pointer) : undefined;
      if (ref) settingEnv.set(name, ref);
    }
    return { name: i.name, url: i.url, tokenEnv: flags.tokenEnv ?? i.tokenEnv, ...(i.caBundle && { caBundle: i.caBundle }), allowInsecureHttp: i.allowInsecureHttp, settingEnv };
  }
  if (flags.instanceUrl === undefined) return usage('plumb export needs the instance to read', 'give --instance-url URL --token-env NAME, or -c PATH of a configuration that declares it');
  return { name: flags.instance ?? 'main', url: flags.instanceUrl.replace(/\/+$/, '').replace(/\/api\/v4$/, ''), tokenEnv: flags.tokenEnv ?? 'PLUMB_TOKEN', allowInsecureHttp: false };
}

/** NAME when the value at `pointer` is written as exactly `${env:NAME}` (quoted or not). */
function envReference(sources: LoadedSources, pointer: string): string | undefined {
  const at = sources.locations.get(pointer)?.value;
  const text = at && sources.texts.get(at.file);
  if (!at || text === undefined || at.endLine === undefined || at.endLine !== at.line) return undefined;
  const line = text.split('\n')[at.line - 1] ?? '';
  const written = line.slice(at.column - 1, (at.endColumn ?? line.length + 1) - 1).trim().replace(/^(["'])(.*)\1$/, '$2');
  return /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(written)?.[1];
}

function countEntries(entries: readonly ExportEntry[]) {
  const of = (section: string, depth: number, last?: string) => entries.filter((e) => e.path[0] === section && e.path.length === depth && (last === undefined || e.path[2] === last));
  const tokens = of('groups', 4, 'access_tokens');
  return {
    settings: of('settings', 2).length,
    tokens: tokens.length,
    groups: new Set(tokens.map((t) => t.path[1])).size,
    repositoryFiles: of('projects', 4, 'files').length,
    pages: of('projects', 3, 'pages').length,
  };
}

/** Plain data with every map's keys sorted (arrays keep their order: exporters sort sets). */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .map((k) => [k, sorted(obj[k])]),
    );
  }
  return value;
}

/** The YAML text: one document, keys sorted, each entry's comment above its key, env names at the end. */
export function renderExport(target: Pick<Target, 'name' | 'url' | 'tokenEnv'>, entries: readonly ExportEntry[], env: readonly ExportEnv[]): string {
  const tree: Record<string, unknown> = {};
  const comments = new Map<string, string>();
  for (const e of entries) {
    let node = tree;
    for (const k of e.path.slice(0, -1)) node = (node[k] ??= {}) as Record<string, unknown>;
    node[e.path[e.path.length - 1]!] = e.value;
    if (e.comment) comments.set(JSON.stringify(e.path), e.comment);
  }
  const instance = { url: target.url, token_env: target.tokenEnv, ...(sorted(tree) as Record<string, unknown>) };
  const doc = new Document({ version: 1, instances: { [target.name]: instance } });
  const base = ['instances', target.name];
  for (const [key, comment] of comments) {
    const p = JSON.parse(key) as string[];
    const parent = doc.getIn([...base, ...p.slice(0, -1)], true) as Node | undefined;
    if (!isMap(parent)) continue;
    const pair = parent.items.find((it: Pair) => isScalar(it.key) && it.key.value === p[p.length - 1]);
    if (pair && isScalar(pair.key)) pair.key.commentBefore = comment;
  }
  doc.commentBefore =
    ` Exported by \`plumb export\` from ${target.url}. Review it, fill in every TODO, and commit.\n` +
    ' Keys are sorted and nothing depends on the time of the export: exporting again shows only what\n changed on the instance (docs/export.md).';
  if (env.length > 0) {
    doc.comment =
      ' Environment variables this configuration reads (secrets the instance never returns):\n' + env.map((e) => `   ${e.name}: ${e.why}`).join('\n');
  }
  return doc.toString({ lineWidth: 0 });
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** What a 404 of an export read is about, named as the user wrote it on the command line. */
export function notFoundSubject(apiPath: string): string | undefined {
  const seg = (s: string) => safeDecode(s);
  let m = /^\/projects\/([^/]+)\/repository\/files\/([^/?]+)/.exec(apiPath);
  if (m) return `file "${seg(m[2]!)}" of project "${seg(m[1]!)}" (--file ${seg(m[1]!)}:${seg(m[2]!)})`;
  m = /^\/projects\/([^/]+)\/pages/.exec(apiPath);
  if (m) return `the Pages of project "${seg(m[1]!)}" (--pages ${seg(m[1]!)}; a project without Pages answers 404 too)`;
  m = /^\/projects\/([^/?]+)/.exec(apiPath);
  if (m) return `project "${seg(m[1]!)}"`;
  m = /^\/groups\/([^/?]+)/.exec(apiPath);
  if (m) return `group "${seg(m[1]!)}" (--group ${seg(m[1]!)})`;
  return undefined;
}
