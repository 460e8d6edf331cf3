/**
 * Terraform values → plumb's configuration. A resource's configuration (or state) is written as one
 * plumb configuration document and loaded by plumb's own loader (src/config/validate.ts), so every
 * offline check, dependency rule and resolution is the one YAML gets — never a second copy.
 *
 * The document is written to a private temporary directory and removed once read. Values of
 * write-only attributes never touch the disk: the document says `${env:…}` and the value is passed
 * in the loader's environment, which also marks it secret (masked everywhere, compared only through
 * fingerprints), exactly as an interpolated value in YAML.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isSecretSetting } from '../catalogue/index.js';
import { loadConfig } from '../config/validate.js';
import type { ConfigResult } from '../config/validate.js';
import { splitPointer } from '../config/pointer.js';
import { isUnknown } from './cty.js';
import type { CtyValue } from './cty.js';
import { SETTINGS_META_ATTRIBUTES } from './schema.js';

/** The instance's name in the documents plumb builds (it shows in plumb's addresses). */
export const INSTANCE = 'terraform';

export type TfObject = { readonly [key: string]: CtyValue };

/** The provider block, as ConfigureProvider received it. */
export interface ProviderSettings {
  readonly url: string;
  readonly tokenEnv: string;
  readonly caBundle?: string;
  readonly allowInsecureHttp?: boolean;
  readonly allowRisky?: readonly string[];
  readonly stateFile: string;
}

/** What one document declares: at most one resource of each kind (or a token to be destroyed). */
export interface Declared {
  readonly settings?: TfObject;
  readonly token?: TfObject;
  /** Prune the group's tokens (destroy: nothing declared, the one named goes). */
  readonly pruneGroup?: string;
  readonly file?: TfObject;
  readonly pages?: TfObject;
}

/** A step of a Terraform attribute path. */
export type PathStep = { readonly attribute: string } | { readonly key: string } | { readonly index: number };

export interface Built {
  readonly loaded: ConfigResult;
  /** Where in the Terraform configuration a diagnostic's pointer is; undefined: the resource as a whole. */
  readonly pathOf: (pointer: string | undefined) => PathStep[] | undefined;
}

/** Placeholder used while the provider is not configured yet (validation runs before configure). */
const UNCONFIGURED: ProviderSettings = { url: 'https://unconfigured.invalid', tokenEnv: 'PLUMB_TOKEN', stateFile: '.plumb/state.json' };

const known = (v: CtyValue | undefined): v is Exclude<CtyValue, null> => v !== null && v !== undefined && !isUnknown(v);

/** A string as plumb's loader must read it literally (it interpolates `${…}`). */
function literal(v: CtyValue): unknown {
  if (typeof v === 'string') return v.replaceAll('${', '$${');
  if (Array.isArray(v)) return (v as CtyValue[]).filter(known).map(literal);
  if (v !== null && typeof v === 'object' && !isUnknown(v)) {
    return Object.fromEntries(Object.entries(v).filter(([, e]) => known(e)).map(([k, e]) => [k, literal(e)]));
  }
  return v;
}

function accessLevel(v: string): string | number {
  return /^\d+$/.test(v.trim()) ? Number(v) : v;
}

function tokenDocument(t: TfObject, cwd: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (known(t.description)) out.description = literal(t.description);
  if (known(t.scopes)) out.scopes = literal(t.scopes);
  if (typeof t.access_level === 'string') out.access_level = accessLevel(t.access_level);
  if (known(t.expires_at)) out.expires_at = literal(t.expires_at);
  if (known(t.rotation)) out.rotation = literal(t.rotation);
  if (known(t.self)) out.self = t.self;
  const sink = t.sink;
  if (known(sink) && typeof sink === 'object' && !Array.isArray(sink)) {
    const s = sink as TfObject;
    const doc: Record<string, unknown> = {};
    if (typeof s.file === 'string') doc.file = literal(path.resolve(cwd, s.file));
    if (Array.isArray(s.command)) {
      const argv = (s.command as CtyValue[]).filter((a): a is string => typeof a === 'string');
      // A relative program path means the working directory, not the temporary document's.
      doc.command = literal(argv.map((a, i) => (i === 0 && a.includes('/') ? path.resolve(cwd, a) : a)));
    }
    if (s.stdout === true) doc.stdout = true;
    out.sink = doc;
  }
  return out;
}

/**
 * Builds and loads the plumb document for what is declared. `env` is the environment the loader
 * and the engine see (with the write-only values added under private names).
 */
export function buildConfig(provider: ProviderSettings | undefined, d: Declared, opts: { env: NodeJS.ProcessEnv; today: string; cwd: string }): Built & { env: NodeJS.ProcessEnv } {
  const p = provider ?? UNCONFIGURED;
  const env: NodeJS.ProcessEnv = { ...opts.env };
  const instance: Record<string, unknown> = { url: p.url, token_env: p.tokenEnv };
  if (p.caBundle) instance.ca_bundle = path.resolve(opts.cwd, p.caBundle);
  if (p.allowInsecureHttp !== undefined) instance.allow_insecure_http = p.allowInsecureHttp;
  if (p.allowRisky) instance.allow_risky = [...p.allowRisky];
  let secretCount = 0;
  if (d.settings) {
    const settings: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(d.settings)) {
      if ((SETTINGS_META_ATTRIBUTES as readonly string[]).includes(name) || !known(v)) continue;
      if (isSecretSetting(name) && typeof v === 'string') {
        const key = `PLUMB_TF_WRITE_ONLY_${++secretCount}`;
        env[key] = v;
        settings[name] = `\${env:${key}}`;
      } else settings[name] = literal(v);
    }
    instance.settings = settings;
  }
  const groupRef = typeof d.token?.group === 'string' ? d.token.group : d.pruneGroup;
  if (groupRef !== undefined) {
    const tokens: Record<string, unknown> = {};
    if (d.token && typeof d.token.name === 'string') tokens[d.token.name] = tokenDocument(d.token, opts.cwd);
    instance.groups = { [groupRef]: { ...(d.pruneGroup !== undefined && { prune_access_tokens: true }), access_tokens: tokens } };
  }
  const projectRef = typeof d.file?.project === 'string' ? d.file.project : typeof d.pages?.project === 'string' ? d.pages.project : undefined;
  if (projectRef !== undefined) {
    const project: Record<string, unknown> = {};
    if (d.file && typeof d.file.path === 'string') {
      const f: Record<string, unknown> = {};
      if (known(d.file.branch)) f.branches = [literal(d.file.branch)];
      for (const k of ['content', 'encoding', 'execute_filemode', 'commit_message', 'author_name', 'author_email']) {
        if (known(d.file[k])) f[k] = literal(d.file[k]!);
      }
      project.files = { [d.file.path]: f };
    }
    if (d.pages) {
      project.pages = Object.fromEntries(
        ['pages_unique_domain_enabled', 'pages_https_only', 'pages_primary_domain'].filter((k) => known(d.pages![k])).map((k) => [k, literal(d.pages![k]!)]),
      );
    }
    instance.projects = { [projectRef]: project };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-tf-'));
  let loaded: ConfigResult;
  try {
    const file = path.join(dir, 'terraform.plumb.yaml');
    writeFileSync(file, JSON.stringify({ version: 1, instances: { [INSTANCE]: instance } }, null, 1), { mode: 0o600 });
    loaded = loadConfig([file], { env, cwd: opts.cwd, today: opts.today });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { loaded, env, pathOf };
}

/** Maps a pointer into the built document to the Terraform attribute it came from. */
function pathOf(pointer: string | undefined): PathStep[] | undefined {
  if (pointer === undefined) return undefined;
  const s = splitPointer(pointer);
  if (s[0] !== 'instances' || s[1] !== INSTANCE) return undefined;
  const steps = (rest: string[]): PathStep[] =>
    rest.map((seg, i) => (i === 0 ? { attribute: seg } : /^\d+$/.test(seg) ? { index: Number(seg) } : { attribute: seg }));
  const rest = s.slice(2);
  if (rest[0] === 'settings') return rest.length > 1 ? steps(rest.slice(1)) : undefined;
  if (rest[0] === 'groups') {
    if (rest.length <= 2) return [{ attribute: 'group' }];
    if (rest.length <= 4) return rest[2] === 'access_tokens' && rest.length === 4 ? undefined : [{ attribute: 'group' }];
    return steps(rest.slice(4));
  }
  if (rest[0] === 'projects') {
    if (rest.length <= 2) return [{ attribute: 'project' }];
    if (rest[2] === 'pages') return rest.length > 3 ? steps(rest.slice(3)) : undefined;
    if (rest[2] === 'files') {
      if (rest.length <= 4) return rest.length === 4 ? [{ attribute: 'path' }] : undefined;
      const tail = rest.slice(4);
      if (tail[0] === 'branches') return [{ attribute: 'branch' }];
      return steps(tail);
    }
  }
  // The instance itself: url, token_env, ca_bundle… are the provider block's attributes.
  return rest.length > 0 ? steps(rest) : undefined;
}

/** Whether a diagnostic is about the provider block rather than a resource. */
export function isProviderPointer(pointer: string | undefined): boolean {
  if (pointer === undefined) return false;
  const s = splitPointer(pointer);
  return s[0] === 'instances' && s.length >= 3 && !['settings', 'groups', 'projects'].includes(s[2]!);
}

