/**
 * Stage 5 of loading a configuration: **resolve**. The merged data, checked against the schema
 * (./schema.ts), becomes the desired state (../model.ts): per instance its own fields (the URL
 * refused offline where the client would refuse it, the CA bundle, `allow_risky`'s risk ids, the
 * lock) and each kind's part, by kind name: a kind mounted directly under the instance is resolved
 * once, a kind under a shared container (groups, projects: src/catalogue/containers.ts) once per
 * entry that writes one of its keys, after that entry's reference is checked once. The kinds'
 * checks across instances are the next stage (./checks.ts).
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { closestMatch } from '../../util/suggest.js';
import { DESTROY_IDS, isDestroyId, RISK_IDS } from '../risk-ids.js';
import { canonicalInstanceUrl, isLoopbackHost } from '../../util/url.js';
import { resolveInstanceLock } from '../instance-lock.js';
import { at, checkRef, obj, push, relativeToFile } from '../resolve-context.js';
import type { Ctx } from '../resolve-context.js';
import type { KindConfig } from '../kinds.js';
import { mountContainers, mountedUnder } from '../kinds.js';
import { CONTAINERS, CONTAINER_NAMES } from '../../catalogue/containers.js';
import { joinPointer } from '../pointer.js';
import type { DesiredConfig, DesiredContainer, DesiredInstance } from '../model.js';

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

export function resolveConfig(data: Record<string, unknown>, kinds: readonly KindConfig[], ctx: Ctx): DesiredConfig {
  const instances: DesiredInstance[] = [];
  /** One map for every instance (DesiredInstance.claims), filled by the checks stage. */
  const claims = new Map<string, string>();
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
    // Filled by the checks stage (./checks.ts), once every instance is resolved.
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
      allowRisky: resolveAllowRisky(inst.allow_risky, joinPointer(p, 'allow_risky'), kinds, ctx),
      claims,
      ...(lock && { lock }),
      resources,
      containers,
    });
  }
  return { instances };
}

/** `allow_risky`: known risk ids only (a typo would silently accept nothing): the shared ones and the kinds' own (`KindConfig.risks`). */
function resolveAllowRisky(raw: unknown, p: string, kinds: readonly KindConfig[], ctx: Ctx): string[] {
  if (!Array.isArray(raw)) return [];
  const known = [...RISK_IDS, ...kinds.flatMap((k) => Object.keys(k.risks ?? {}))];
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
    if (!known.includes(id)) {
      const guess = closestMatch(id, known);
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_UNKNOWN_RISK',
        summary: `Unknown risk id "${id}" in allow_risky`,
        detail: `plumb knows: ${known.join(', ')}.`,
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
  for (const k of kinds.filter((x) => mountContainers(x.mount).length === 0)) {
    if (!has(inst, k)) continue;
    const part = k.resolve(inst, { pointer: p, instance: name }, ctx);
    if (part !== undefined) resources.set(k.kind, part);
  }
  for (const c of CONTAINER_NAMES) {
    const under = kinds.filter((x) => mountedUnder(x.mount, c));
    const held: DesiredContainer[] = [];
    for (const [ref, raw] of Object.entries(obj(inst[c]))) {
      const cp = joinPointer(p, c, ref);
      checkRef(ref, cp, CONTAINERS[c].noun, ctx);
      const entry = obj(raw);
      let holds = false;
      for (const k of under.filter((x) => has(entry, x))) {
        const part = k.resolve(entry, { pointer: cp, instance: name, ref, container: c }, ctx);
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
