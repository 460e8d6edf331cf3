import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import type { Diagnostic } from '../diagnostics/index.js';
import { hasErrors } from '../diagnostics/index.js';
import { validate as generatedValidate } from '../generated/config-validator.js';
import { closestMatch } from '../util/suggest.js';
import { DESTROY_IDS, isDestroyId, isRiskId, RISK_IDS } from './risk-ids.js';
import { canonicalInstanceUrl, isLoopbackHost } from '../util/url.js';
import { loadSources, resolveConfigFiles } from './load.js';
import { committedSchema, dedupeErrors, mapSchemaError } from './schema-errors.js';
import type { JsonSchemaNode } from './schema-errors.js';
import { resolveInstanceLock } from './instance-lock.js';
import { displayName } from './paths.js';
import { at, checkRef, obj, protectedFiles, push, relativeToFile } from './resolve-context.js';
import type { Ctx } from './resolve-context.js';
import type { KindConfig } from './kinds.js';
import { CONTAINERS, CONTAINER_NAMES } from '../catalogue/containers.js';
import type { LoadedSources, LoadOptions } from './load.js';
import { joinPointer, splitPointer } from './pointer.js';
import type { DesiredConfig, DesiredContainer, DesiredInstance } from './model.js';

/** The ajv standalone validator generated at build time (no schema compilation at start-up). */
const generatedSchema = generatedValidate as unknown as ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

export interface ValidateOptions extends LoadOptions {
  /** Today's date for date checks (YYYY-MM-DD); defaults to the current UTC date. */
  readonly today?: string;
  /**
   * Confine token sink files to this directory (a real path): the Terraform door's configuration
   * root, for sinks from the configuration and from import ids alike (docs/terraform.md, "Import").
   */
  readonly sinkRoot?: string;
}

export interface ConfigResult {
  /** Present only when there are no errors. */
  readonly config?: DesiredConfig;
  readonly diagnostics: Diagnostic[];
  readonly sources: LoadedSources;
  /**
   * With `config`: the local files nothing plumb writes may land on (its configuration files and the
   * files its kinds read, e.g. `source:`), real path → what it is; see `protectedFile`.
   */
  readonly protectedFiles?: ReadonlyMap<string, string>;
}

/** Loads, merges, validates and resolves a configuration; never touches the network. */
export function loadConfig(paths: readonly string[], opts: ValidateOptions): ConfigResult {
  const cwd = opts.cwd ?? process.cwd();
  const resolved = resolveConfigFiles(paths, cwd);
  const sources = loadSources(resolved.files, opts, opts.root === undefined ? resolved.roots : undefined);
  const files = new Map(resolved.files.map((abs) => [displayName(abs, cwd), abs]));
  return validateLoaded(sources, files, resolved.diagnostics, opts);
}

/**
 * Validates and resolves documents already loaded (YAML files, or a CDKTF app's resources turned
 * into the same documents): every check of {@link loadConfig}. `files` maps each shown file name to
 * the absolute path relative paths are resolved against; `earlier` are diagnostics found before
 * loading (they come first, and later checks stay silent where `sources.reported` says so).
 */
export function validateLoaded(sources: LoadedSources, files: Map<string, string>, earlier: readonly Diagnostic[], opts: ValidateOptions): ConfigResult {
  const cwd = opts.cwd ?? process.cwd();
  const diagnostics: Diagnostic[] = [...earlier, ...sources.diagnostics];
  const ctx: Ctx = { sources, diagnostics, today: opts.today ?? new Date().toISOString().slice(0, 10), files, cwd, localReads: new Map(), ...(opts.sinkRoot !== undefined && { sinkRoot: opts.sinkRoot }) };
  const kinds = opts.kinds;
  const validateSchema = kinds.schema?.validate ?? generatedSchema;
  if (!validateSchema(sources.data)) {
    const json = kinds.schema ? () => kinds.schema!.json() as JsonSchemaNode : committedSchema;
    for (const e of dedupeErrors(validateSchema.errors ?? [])) mapSchemaError(e, ctx, json, kinds);
  }
  const config = resolveConfig(sources.data, kinds.configs, ctx);
  // What the loader reported (an unusable number, an empty interpolation…) is reported once.
  const first = earlier.length + sources.diagnostics.length;
  const later = diagnostics.splice(first).filter((d) => d.pointer === undefined || !(sources.reported.covers(d.pointer) || sources.reported.covers(sources.locations.written(d.pointer))));
  diagnostics.push(...later);
  if (sources.defaults.size > 0) diagnostics.splice(0, diagnostics.length, ...withDefaultsOrigins(diagnostics, sources));
  if (hasErrors(diagnostics)) return { diagnostics, sources };
  return { config, diagnostics, sources, protectedFiles: protectedFiles(ctx) };
}

/**
 * With `defaults:`: a value every instance inherits is one place in the files, so a problem with it
 * is reported once (at the default), not once per instance; a problem with an instance's value that
 * overrides a default names the default too (`related`), so both places are in the message.
 */
function withDefaultsOrigins(diagnostics: readonly Diagnostic[], sources: LoadedSources): Diagnostic[] {
  const seen = new Map<string, number>();
  const out: Diagnostic[] = [];
  for (const d of diagnostics) {
    if (d.pointer === undefined) {
      out.push(d);
      continue;
    }
    const written = sources.locations.written(d.pointer);
    // (A value a selector gave a project is aliased too: config/selectors.ts reports those.)
    if (written !== d.pointer && written.startsWith('/defaults/')) {
      const key = `${d.code}\0${written}`;
      const first = seen.get(key);
      const instance = splitPointer(d.pointer)[1] ?? '';
      if (first === undefined) {
        seen.set(key, out.length);
        out.push({ ...d, related: [...(d.related ?? []), { message: `declared in defaults; instance "${instance}" inherits it` }] });
      } else {
        // Two problems of one instance at one default (a selector's fixed sink, and the same file across instances): one note.
        const kept = out[first]!;
        if (!(kept.related ?? []).some((r) => r.message.includes(`instance "${instance}" inherits it`))) {
          out[first] = { ...kept, related: [...(kept.related ?? []), { message: `instance "${instance}" inherits it too` }] };
        }
      }
      continue;
    }
    const over = sources.defaults.overrideOver(d.pointer);
    if (!over) {
      out.push(d);
      continue;
    }
    const at = sources.locations.get(over.defaults);
    out.push({ ...d, related: [...(d.related ?? []), { message: 'this overrides the value in defaults declared here', location: at?.key ?? at?.value }] });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Semantic checks and resolution into the desired-state model

/**
 * What the client would refuse before its first request, refused offline: plain HTTP to a host
 * that is not loopback (unless the instance opts in), credentials or a query in the URL. And two
 * instances that are one (the same URL spelled differently): each apply would undo the other.
 */
function checkInstanceUrl(name: string, inst: Record<string, unknown>, p: string, seen: Map<string, string>, ctx: Ctx): void {
  if (typeof inst.url !== 'string' || ctx.sources.reported.covers(joinPointer(p, 'url'))) return;
  const up = joinPointer(p, 'url');
  let url: URL;
  try {
    url = new URL(inst.url);
  } catch {
    return; // the schema's pattern reports it
  }
  if (url.username !== '' || url.password !== '') {
    for (const v of [url.password, decodeURIComponent(url.password), `${url.username}:${url.password}`]) if (v) ctx.sources.secrets.add(v);
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_URL_CREDENTIALS',
      summary: `The url of instance "${name}" carries a user name or password`,
      detail: 'Credentials in a URL end up in logs and in Git. plumb authenticates with the token named by token_env only.',
      suggestion: `write the URL without "user:password@" (and change that password: it was committed)`,
      pointer: up,
    });
  }
  if (url.search !== '' || url.hash !== '') {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_STRING_FORMAT',
      summary: `The url of instance "${name}" has a ${url.search !== '' ? 'query (?…)' : 'fragment (#…)'}`,
      detail: 'The url is the base of every API path; a query or fragment has no meaning there.',
      suggestion: `write the base URL only, e.g. ${url.protocol}//${url.host}`,
      pointer: up,
    });
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && inst.allow_insecure_http !== true) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_INSECURE_HTTP',
      summary: `Instance "${name}" is reached over plain HTTP at ${url.hostname}`,
      detail: 'The access token would cross the network unencrypted. Plain HTTP is allowed without asking only to loopback (localhost, 127.0.0.1, ::1).',
      suggestion: `use https://${url.host}${url.pathname === '/' ? '' : url.pathname}, or set \`allow_insecure_http: true\` on the instance if you accept the risk`,
      pointer: up,
    });
  }
  const key = canonicalInstanceUrl(inst.url);
  if (key === undefined) return;
  const first = seen.get(key);
  if (first === undefined) {
    seen.set(key, name);
    return;
  }
  push(ctx, {
    severity: 'error',
    code: 'PLUMB_DUPLICATE_INSTANCE_URL',
    summary: `Instances "${first}" and "${name}" are the same instance (${key})`,
    detail: 'URLs are compared without case in the scheme and host, without the default port, trailing slash or /api/v4. Two declarations of one instance would undo each other on every apply.',
    suggestion: `declare the instance once: merge "${name}" into "${first}"`,
    pointer: up,
    related: [{ message: `"${first}" has this URL here`, location: at(ctx, joinPointer('/instances', first, 'url')) }],
  });
}

/** Whether the file (read up to 1 MB: a bundle is far smaller) holds a PEM certificate; unreadable: no. */
function holdsPemCertificate(file: string): boolean {
  let fd: number | undefined;
  try {
    if (!statSync(file).isFile()) return false;
    fd = openSync(file, 'r');
    const buf = Buffer.alloc(1024 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).includes('-----BEGIN CERTIFICATE-----');
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function resolveConfig(data: Record<string, unknown>, kinds: readonly KindConfig[], ctx: Ctx): DesiredConfig {
  const instances: DesiredInstance[] = [];
  const urls = new Map<string, string>();
  for (const [name, raw] of Object.entries(obj(data.instances))) {
    const p = joinPointer('/instances', name);
    const inst = obj(raw);
    checkInstanceUrl(name, inst, p, urls, ctx);
    const caBundle = typeof inst.ca_bundle === 'string' ? relativeToFile(ctx, joinPointer(p, 'ca_bundle'), inst.ca_bundle) : undefined;
    if (caBundle !== undefined && !existsSync(caBundle)) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_FILE_MISSING',
        summary: `CA bundle "${String(inst.ca_bundle)}" does not exist`,
        suggestion: 'give the path of a PEM file, relative to this YAML file',
        pointer: joinPointer(p, 'ca_bundle'),
      });
    } else if (caBundle !== undefined && !holdsPemCertificate(caBundle)) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_CA_BUNDLE_NOT_PEM',
        summary: `CA bundle "${String(inst.ca_bundle)}" holds no PEM certificate`,
        detail: 'plumb trusts the certificates of this file instead of the system CAs; a file without a "-----BEGIN CERTIFICATE-----" line (a DER file, a key, the wrong file) would make every connection fail.',
        suggestion: 'give the PEM file of your CA (convert a DER file with `openssl x509 -inform der -in ca.cer -out ca.pem`)',
        pointer: joinPointer(p, 'ca_bundle'),
      });
    }
    if (inst.url === undefined && Object.keys(inst).length > 0) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_MISSING_FIELD',
        summary: `Instance "${name}" has no url`,
        suggestion: 'add `url: https://code.example.com` to the instance',
        pointer: p,
        on: 'key',
      });
    }
    if (inst.token_env === undefined && inst.token === undefined && Object.keys(inst).length > 0) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_MISSING_FIELD',
        summary: `Instance "${name}" does not say where its access token comes from`,
        suggestion: 'add `token_env: PLUMB_TOKEN` (the name of an environment variable holding an administrator token)',
        pointer: p,
        on: 'key',
      });
    }
    const { resources, containers } = resolveKinds(name, inst, p, kinds, ctx);
    const lock = resolveInstanceLock(inst.lock, joinPointer(p, 'lock'), ctx);
    instances.push({
      name,
      pointer: p,
      // One spelling per instance, so state recorded under it survives a respelling of the URL.
      url: typeof inst.url === 'string' ? (canonicalInstanceUrl(inst.url) ?? inst.url.replace(/\/+$/, '')) : '',
      tokenEnv: typeof inst.token_env === 'string' ? inst.token_env : '',
      caBundle,
      allowInsecureHttp: inst.allow_insecure_http === true,
      settingsVerifySeconds: typeof inst.settings_verify_seconds === 'number' ? inst.settings_verify_seconds : 90,
      allowRisky: resolveAllowRisky(inst.allow_risky, joinPointer(p, 'allow_risky'), ctx),
      ...(lock && { lock }),
      resources,
      containers,
    });
  }
  for (const k of kinds) k.check?.(instances, ctx);
  if (instances.length === 0 && !hasErrors(ctx.diagnostics)) {
    ctx.diagnostics.push({
      severity: 'warning',
      code: 'PLUMB_NOTHING_DECLARED',
      summary: 'The configuration declares no instance',
      suggestion: 'add an `instances:` mapping (see docs/config.md)',
    });
  }
  return { instances };
}

/** `allow_risky`: known risk ids only (a typo would silently accept nothing). */
function resolveAllowRisky(raw: unknown, p: string, ctx: Ctx): string[] {
  if (!Array.isArray(raw)) return [];
  const ids: string[] = [];
  raw.forEach((id, i) => {
    if (typeof id !== 'string') return; // reported by the schema pass
    if (isDestroyId(id)) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_UNKNOWN_RISK',
        summary: `"${id}" in allow_risky is a destroy, which allow_risky does not accept`,
        detail: 'A destroy removes something people use; plumb applies it only when asked for that resource or that run, never through the lock-out risks of allow_risky.',
        suggestion: `accept it with ${DESTROY_IDS[id].cli} (or plumb apply --allow-destroy), and remove it from allow_risky`,
        pointer: joinPointer(p, String(i)),
      });
      return;
    }
    if (!isRiskId(id)) {
      const guess = closestMatch(id, RISK_IDS);
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_UNKNOWN_RISK',
        summary: `Unknown risk id "${id}" in allow_risky`,
        detail: `plumb knows: ${RISK_IDS.join(', ')}.`,
        suggestion: guess ? `did you mean "${guess}"?` : 'use one of the ids docs/plans.md lists under "Risky changes"',
        pointer: joinPointer(p, String(i)),
      });
      return;
    }
    ids.push(id);
  });
  return ids;
}

/**
 * Each kind's part of one instance, by kind name: a kind mounted directly under the instance is
 * resolved once, a kind under a container once per entry (a group, a project) that writes one of its
 * keys. Each container entry's reference is checked once, whatever kinds live under it; the entries
 * under which some kind declares something are the instance's `containers`.
 */
function resolveKinds(
  name: string,
  inst: Record<string, unknown>,
  p: string,
  kinds: readonly KindConfig[],
  ctx: Ctx,
): { resources: Map<string, unknown>; containers: Map<string, DesiredContainer[]> } {
  const resources = new Map<string, unknown>();
  const containers = new Map<string, DesiredContainer[]>();
  const has = (raw: Record<string, unknown>, k: KindConfig) => k.mount.keys.some((key) => raw[key] !== undefined);
  for (const k of kinds.filter((x) => !x.mount.container)) {
    if (!has(inst, k)) continue;
    const part = k.resolve(inst, { pointer: p, instance: name }, ctx);
    if (part !== undefined) resources.set(k.kind, part);
  }
  for (const c of CONTAINER_NAMES) {
    const under = kinds.filter((x) => x.mount.container === c);
    const held: DesiredContainer[] = [];
    for (const [ref, raw] of Object.entries(obj(inst[c]))) {
      const cp = joinPointer(p, c, ref);
      checkRef(ref, cp, CONTAINERS[c].noun, ctx);
      const entry = obj(raw);
      let holds = false;
      for (const k of under.filter((x) => has(entry, x))) {
        const part = k.resolve(entry, { pointer: cp, instance: name, ref }, ctx);
        if (part === undefined) continue;
        // Appended in place: copying the list per entry was quadratic (3,000 selector matches).
        const list = resources.get(k.kind) as unknown[] | undefined;
        if (list) list.push(part);
        else resources.set(k.kind, [part]);
        holds = true;
      }
      if (holds) held.push({ ref, pointer: cp });
    }
    if (held.length > 0) containers.set(c, held);
  }
  return { resources, containers };
}
