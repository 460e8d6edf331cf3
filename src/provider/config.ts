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
import path from 'node:path';
import { isSecretSetting } from '../catalogue/index.js';
import { validateLoaded } from '../config/validate.js';
import { loadDocuments } from '../config/load.js';
import { configRoot } from '../config/files.js';
import type { ConfigResult } from '../config/validate.js';
import { splitPointer } from '../config/pointer.js';
import { isUnknown } from './cty.js';
import type { CtyValue } from './cty.js';
import { RESOURCE_TYPES, SETTINGS_META_ATTRIBUTES, blockNames } from './schema.js';

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
  readonly settingsVerifySeconds?: number;
  readonly stateFile: string;
}

/** What one document declares: at most one resource of each kind (or a token to be destroyed). */
export interface Declared {
  readonly settings?: TfObject;
  readonly token?: TfObject;
  /** Prune the group's tokens (destroy: nothing declared, the one named goes). */
  readonly pruneGroup?: string;
  readonly file?: TfObject;
  /** Declare the file `state: absent` (destroy, or reading a file whose content is not in state). */
  readonly fileAbsent?: boolean;
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

/** A nested block's value: Terraform gives a list of at most one object (an empty list: absent). */
export function one(v: CtyValue | undefined): TfObject | undefined {
  const x = Array.isArray(v) ? (v as CtyValue[])[0] : v;
  return known(x) && typeof x === 'object' && !Array.isArray(x) ? (x as TfObject) : undefined;
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
  const rotation = one(t.rotation);
  if (rotation) out.rotation = literal(rotation);
  if (known(t.self)) out.self = t.self;
  if (typeof t.id === 'number') out.id = t.id;
  const s = one(t.sink);
  if (s) {
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

/** A repository file's plumb document; `absent`: the file is to be deleted (its content is not needed). */
function fileDocument(f: TfObject, cwd: string, absent: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (known(f.branches)) out.branches = literal(f.branches);
  if (absent) return { ...out, state: 'absent' };
  for (const k of ['content', 'encoding', 'execute_filemode', 'start_branch', 'commit_message', 'author_name', 'author_email', 'state']) {
    if (known(f[k])) out[k] = literal(f[k]!);
  }
  // Relative to the working directory, as Terraform's own file functions are; not to the temporary document.
  if (typeof f.source === 'string') out.source = literal(path.resolve(cwd, f.source));
  const messages = one(f.commit_messages);
  if (messages) out.commit_messages = literal(messages);
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
  if (p.settingsVerifySeconds !== undefined) instance.settings_verify_seconds = p.settingsVerifySeconds;
  let secretCount = 0;
  const settingsBlocks = blockNames(RESOURCE_TYPES.settings);
  if (d.settings) {
    const settings: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(d.settings)) {
      if ((SETTINGS_META_ATTRIBUTES as readonly string[]).includes(name) || !known(v)) continue;
      if (settingsBlocks.has(name)) {
        const b = one(v);
        if (b) settings[name] = literal(b);
        continue;
      }
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
    if (d.file && typeof d.file.file_path === 'string') project.files = { [d.file.file_path]: fileDocument(d.file, opts.cwd, d.fileAbsent === true) };
    if (d.pages) {
      project.pages = Object.fromEntries(
        ['pages_unique_domain_enabled', 'pages_https_only', 'pages_primary_domain', 'published', 'allow_unpublish'].filter((k) => known(d.pages![k])).map((k) => [k, literal(d.pages![k]!)]),
      );
    }
    instance.projects = { [projectRef]: project };
  }
  // The document plumb wrote is read from memory; the local files it names (source, sink paths,
  // resolved against the working directory) are confined to the Terraform configuration's root.
  const shown = 'terraform.plumb.yaml';
  const abs = path.join(opts.cwd, shown);
  const validateOpts = { env, cwd: opts.cwd, today: opts.today, root: configRoot(opts.cwd, opts.cwd) };
  const text = JSON.stringify({ version: 1, instances: { [INSTANCE]: instance } }, null, 1);
  const loaded: ConfigResult = validateLoaded(loadDocuments([{ abs, file: shown, text }], validateOpts), new Map([[shown, abs]]), [], validateOpts);
  return { loaded, env, pathOf };
}

/** Maps a pointer into the built document to the Terraform attribute it came from. */
function pathOf(pointer: string | undefined): PathStep[] | undefined {
  if (pointer === undefined) return undefined;
  const s = splitPointer(pointer);
  if (s[0] !== 'instances' || s[1] !== INSTANCE) return undefined;
  // A nested block is a one-element list in Terraform's values: its attributes sit under index 0.
  const steps = (rest: string[], blocks: ReadonlySet<string> = new Set()): PathStep[] =>
    rest.flatMap((seg, i): PathStep[] => (i === 0 ? (blocks.has(seg) && rest.length > 1 ? [{ attribute: seg }, { index: 0 }] : [{ attribute: seg }]) : /^\d+$/.test(seg) ? [{ index: Number(seg) }] : [{ attribute: seg }]));
  const rest = s.slice(2);
  if (rest[0] === 'settings') return rest.length > 1 ? steps(rest.slice(1), blockNames(RESOURCE_TYPES.settings)) : undefined;
  if (rest[0] === 'groups') {
    if (rest.length <= 2) return [{ attribute: 'group' }];
    if (rest.length <= 4) return rest[2] === 'access_tokens' && rest.length === 4 ? undefined : [{ attribute: 'group' }];
    return steps(rest.slice(4), blockNames(RESOURCE_TYPES.token));
  }
  if (rest[0] === 'projects') {
    if (rest.length <= 2) return [{ attribute: 'project' }];
    if (rest[2] === 'pages') return rest.length > 3 ? steps(rest.slice(3)) : undefined;
    if (rest[2] === 'files') {
      if (rest.length <= 4) return rest.length === 4 ? [{ attribute: 'file_path' }] : undefined;
      return steps(rest.slice(4), blockNames(RESOURCE_TYPES.file));
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

