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
import { validateLoaded } from '../config/validate.js';
import { loadDocuments } from '../config/load.js';
import { configRoot } from '../config/files.js';
import type { ConfigResult } from '../config/validate.js';
import { splitPointer } from '../config/pointer.js';
import { isUnknown } from './cty.js';
import type { CtyValue } from './cty.js';
import { blockNames, resourceBlock } from './schema.js';
import type { KindSet } from '../resources/index.js';
import type { DocumentHelpers, FragmentBuilder, PathStep, TerraformPart, TfObject } from '../resources/terraform.js';

export type { PathStep, TfObject } from '../resources/terraform.js';

/** The instance's name in the documents plumb builds (it shows in plumb's addresses). */
export const INSTANCE = 'terraform';

/** The provider block, as ConfigureProvider received it. */
export interface ProviderSettings {
  readonly url: string;
  readonly tokenEnv: string;
  /** The provider's `token` attribute: the token itself, used instead of `tokenEnv`'s variable. Never logged. */
  readonly token?: string;
  readonly caBundle?: string;
  readonly allowInsecureHttp?: boolean;
  readonly allowRisky?: readonly string[];
  readonly settingsVerifySeconds?: number;
  readonly stateFile: string;
}

/** What one document declares: one kind's resource (its Terraform part and the fragment it wrote), or nothing (the provider block alone). */
export interface Declared {
  readonly part: TerraformPart;
  readonly build: FragmentBuilder;
}

export interface Built {
  readonly loaded: ConfigResult;
  /** Where in the Terraform configuration a diagnostic's pointer is; undefined: the resource as a whole. */
  readonly pathOf: (pointer: string | undefined) => PathStep[] | undefined;
  /** Whether a diagnostic is about the provider block rather than a resource. */
  readonly isProviderPointer: (pointer: string | undefined) => boolean;
}

/** The private environment name the provider's `token` attribute reaches plumb's engine under. */
export const PROVIDER_TOKEN_ENV = 'PLUMB_TF_PROVIDER_TOKEN';

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

/**
 * Builds and loads the plumb document for what is declared. `env` is the environment the loader
 * and the engine see (with the write-only values added under private names).
 */
export function buildConfig(provider: ProviderSettings | undefined, d: Declared | undefined, opts: { env: NodeJS.ProcessEnv; today: string; cwd: string; kinds: KindSet }): Built & { env: NodeJS.ProcessEnv } {
  const p = provider ?? UNCONFIGURED;
  const kinds = opts.kinds;
  const env: NodeJS.ProcessEnv = { ...opts.env };
  const instance: Record<string, unknown> = { url: p.url, token_env: p.tokenEnv };
  if (p.token !== undefined) {
    // The engine reads the token from the environment it is given, registers it as a secret, and
    // sends it only to a URL the environment allows (engine/connection.ts), as for token_env.
    env[PROVIDER_TOKEN_ENV] = p.token;
    instance.token_env = PROVIDER_TOKEN_ENV;
  }
  if (p.caBundle) instance.ca_bundle = path.resolve(opts.cwd, p.caBundle);
  if (p.allowInsecureHttp !== undefined) instance.allow_insecure_http = p.allowInsecureHttp;
  if (p.allowRisky) instance.allow_risky = [...p.allowRisky];
  if (p.settingsVerifySeconds !== undefined) instance.settings_verify_seconds = p.settingsVerifySeconds;
  let secretCount = 0;
  if (d) {
    const helpers: DocumentHelpers = {
      cwd: opts.cwd,
      literal,
      known,
      one,
      block: resourceBlock(d.part.typeName, kinds),
      secret: (v) => {
        const key = `PLUMB_TF_WRITE_ONLY_${++secretCount}`;
        env[key] = v;
        return `\${env:${key}}`;
      },
    };
    Object.assign(instance, d.build(helpers));
  }
  // The document plumb wrote is read from memory; the local files it names (source, sink paths,
  // resolved against the working directory) are confined to the Terraform configuration's root.
  const shown = 'terraform.plumb.yaml';
  const abs = path.join(opts.cwd, shown);
  const root = configRoot(opts.cwd, opts.cwd);
  const validateOpts = { env, cwd: opts.cwd, today: opts.today, root, sinkRoot: root, kinds };
  const text = JSON.stringify({ version: 1, instances: { [INSTANCE]: instance } }, null, 1);
  const loaded: ConfigResult = validateLoaded(loadDocuments([{ abs, file: shown, text }], validateOpts), new Map([[shown, abs]]), [], validateOpts);
  return { loaded, env, pathOf: (pointer) => pathOf(d?.part, pointer, kinds), isProviderPointer: (pointer) => isProviderPointer(pointer, kinds) };
}

/** Maps a pointer into the built document to the Terraform attribute it came from (the resource's kind says how). */
function pathOf(part: TerraformPart | undefined, pointer: string | undefined, kinds: KindSet): PathStep[] | undefined {
  if (pointer === undefined) return undefined;
  const s = splitPointer(pointer);
  if (s[0] !== 'instances' || s[1] !== INSTANCE) return undefined;
  const rest = s.slice(2);
  if (part && rest[0] === part.mount) return part.pathOf(rest, blockNames(part.typeName, kinds));
  // The instance itself: url, token_env, ca_bundle… are the provider block's attributes.
  return rest.length > 0 ? rest.map((seg): PathStep => (/^\d+$/.test(seg) ? { index: Number(seg) } : { attribute: seg })) : undefined;
}

/** Whether a diagnostic is about the provider block rather than a resource. */
export function isProviderPointer(pointer: string | undefined, kinds: KindSet): boolean {
  if (pointer === undefined) return false;
  const s = splitPointer(pointer);
  return s[0] === 'instances' && s.length >= 3 && !kinds.terraformParts.some((p) => p.mount === s[2]);
}

