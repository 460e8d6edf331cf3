/**
 * A synthesized CDKTF stack (`cdk.tf.json`) → plumb's configuration documents: one document per
 * plumb resource, shaped exactly like the YAML a user would write for it (`instances: {…}`), shown
 * under the resource's construct path. The documents are data already (each with its JSON text,
 * for locations and code frames), so they enter the configuration pipeline after its parse stage
 * (src/config/pipeline/): merge, schema, resolve and checks run unchanged, and both front-ends give
 * the same desired state, the same diagnostics and the same plan.
 *
 * Never imports cdktf or constructs: it only reads JSON.
 */
import path from 'node:path';
import type { Diagnostic, SourceLocation } from '../diagnostics/index.js';
import { joinPointer } from '../config/pointer.js';
import { closestMatch } from '../util/suggest.js';
import { describePointer, interpolationAllowed } from '../config/places.js';
import type { KindPointer } from '../config/pointer.js';
import type { TerraformResourceShape } from '../catalogue/index.js';

/** One synthesized stack. */
export interface SynthesizedStack {
  readonly name: string;
  /** The stack's `cdk.tf.json`, parsed. */
  readonly json: Record<string, unknown>;
}

/** A diagnostic about a pointer of the merged configuration, located once the documents are loaded. */
export interface PendingDiagnostic extends Omit<Diagnostic, 'location'> {
  readonly pointer: string;
}

/** One plumb resource as the document a YAML user would have written, already parsed. */
export interface StackDocument {
  /** Shown as: the construct path. */
  readonly file: string;
  /** Relative paths in it resolve against this path's directory (the app's). */
  readonly abs: string;
  /** The document as JSON text (what code frames show), every character a terminal may print. */
  readonly text: string;
  /** The document's value: the text, parsed. */
  readonly value: Record<string, unknown>;
}

export interface StackDocuments {
  readonly documents: StackDocument[];
  /** Problems found while mapping; `pointer` ones are located by the loader's index. */
  readonly pending: PendingDiagnostic[];
  /** Problems with no place in a document (a resource type plumb does not know). */
  readonly located: Diagnostic[];
  /** Shown document name → where the construct was created in the app's source, when the synth metadata says. */
  readonly origins: Map<string, SourceLocation>;
  /** Resources of other providers, by address, ignored. */
  readonly ignored: string[];
  /**
   * Lifted attributes (a file's `delivery`) two constructs state differently for one container:
   * both documents keep theirs, so the merge stage reports the second as a duplicate, located at
   * both; keyed by `pointer` and the second construct's path, the words that replace its message.
   */
  readonly disagreements: Map<string, Omit<Diagnostic, 'severity' | 'location' | 'related'> & { readonly first: string }>;
}

/** Terraform meta-arguments: what they mean for plumb. */
const IGNORED_META = new Set(['//', 'depends_on', 'provider', 'lifecycle']);
const REFUSED_META = new Set(['count', 'for_each', 'provisioner', 'connection']);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

interface Resource {
  readonly stack: string;
  readonly type: string;
  readonly shape: TerraformResourceShape;
  readonly name: string;
  readonly body: Record<string, Json>;
  readonly constructPath: string;
  readonly trace?: readonly string[];
  /** The stack's Terraform variables (`variable` of cdk.tf.json), by name. */
  readonly variables: Readonly<Record<string, Json>>;
  /** The kinds' places: where a secret may come from outside the configuration (`KindPointer.interpolation`). */
  readonly places: readonly KindPointer[];
}

/** A Terraform reference or expression inside a string: `${…}`, but not plumb's own `${env:…}`/`${file:…}` nor the escape `$${`. */
const EXPRESSION = /(?<!\$)\$\{(?!env:|file:)([^}]*)\}/g;
const REFERENCE = /^(plumb_[a-z_]+)\.([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_]+|\[0\])+)$/;

/**
 * `shapes`: the Terraform resources to read (the registry's kinds', `ConfigKinds.terraformShapes`);
 * `places`: the kinds' places (`ConfigKinds.pointers`), which say where a secret may be read.
 */
export function stackDocuments(stacks: readonly SynthesizedStack[], appDir: string, cwd: string, shapes: readonly TerraformResourceShape[], places: readonly KindPointer[]): StackDocuments {
  const out: StackDocuments = { documents: [], pending: [], located: [], origins: new Map(), ignored: [], disagreements: new Map() };
  const stated = new Map<string, Stated>();
  for (const stack of stacks) mapStack(stack, appDir, cwd, out, shapes, places, stated);
  return out;
}

/** A lifted attribute's value as the first construct that states it for its container gave it (by pointer). */
interface Stated {
  readonly constructPath: string;
  readonly json: string;
}

/** Disagreement key: the pointer and the construct whose document states it a second time. */
export const disagreementKey = (pointer: string, constructPath: string): string => `${pointer}\n${constructPath}`;

/** A lifted value's nested blocks, which synthesize as objects or lists of one, as objects, two levels down (`delivery { merge_request {…} }`). */
function unwrapLifted(v: Json): Json {
  const top = unwrapBlocks(v);
  return isObject(top) ? Object.fromEntries(Object.entries(top).map(([k, x]) => [k, unwrapBlocks(x)])) : top;
}

function mapStack(stack: SynthesizedStack, appDir: string, cwd: string, out: StackDocuments, shapes: readonly TerraformResourceShape[], places: readonly KindPointer[], stated: Map<string, Stated>): void {
  const types = shapes.map((r) => r.type);
  const resources = new Map<string, Resource>();
  for (const [type, byName] of Object.entries(isObject(stack.json.resource) ? stack.json.resource : {})) {
    for (const [name, body] of Object.entries(isObject(byName) ? byName : {})) {
      if (!isObject(body)) continue;
      const meta = isObject(body['//']) && isObject(body['//'].metadata) ? body['//'].metadata : {};
      const constructPath = typeof meta.path === 'string' ? meta.path : `${stack.name}/${name}`;
      if (!type.startsWith('plumb_')) {
        out.ignored.push(`${type}.${name}`);
        continue;
      }
      const shape = shapes.find((r) => r.type === type);
      if (!shape) {
        const guess = closestMatch(type, types);
        out.located.push({
          severity: 'error',
          code: 'PLUMB_CDKTF_UNKNOWN_TYPE',
          summary: `Unknown plumb resource type "${type}" (construct ${constructPath})`,
          detail: `plumb manages ${types.join(', ')}.`,
          suggestion: guess ? `did you mean "${guess}"? Use the constructs exported by plumb-gitops/cdktf` : 'use the constructs exported by plumb-gitops/cdktf',
          location: { file: constructPath, line: 1, column: 1 },
        });
        continue;
      }
      // cdktf's own creation stack when it records one, else the one plumb's constructs record.
      const own = isObject(body['//']) ? body['//'].plumb_stack_trace : undefined;
      const rawTrace = Array.isArray(meta.stackTrace) ? meta.stackTrace : Array.isArray(own) ? own : undefined;
      const trace = rawTrace?.filter((l): l is string => typeof l === 'string');
      resources.set(`${type}.${name}`, { stack: stack.name, type, shape, name, body, constructPath, trace, variables: isObject(stack.json.variable) ? stack.json.variable : {}, places });
    }
  }
  for (const [type, byName] of Object.entries(isObject(stack.json.data) ? stack.json.data : {})) {
    for (const name of Object.keys(isObject(byName) ? byName : {})) out.ignored.push(`data.${type}.${name}`);
  }

  const providers = Array.isArray((stack.json.provider as Record<string, Json> | undefined)?.plumb)
    ? ((stack.json.provider as Record<string, Json[]>).plumb ?? [])
    : [];
  for (const p of providers) {
    if (!isObject(p)) continue;
    const alias = typeof p.alias === 'string' ? p.alias : undefined;
    const instance = alias ?? stack.name;
    const file = alias ? `${stack.name}/provider.plumb.${alias}` : `${stack.name}/provider.plumb`;
    const fields = Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'alias' && k !== '//'));
    addDocument(out, appDir, file, nest(['instances', instance], fields));
  }

  for (const r of resources.values()) {
    identityReferences(r, out);
    const instance = instanceOf(r, stack.name);
    const base = ['instances', instance];
    const fields: Record<string, Json> = {};
    const where = (key: string[]) => joinPointer('', ...base, ...key);
    const take = (attr: string): string | undefined => {
      const v = r.body[attr];
      return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
    };
    // `{attr}` segments take the identity attribute's value.
    const fill = (segs: readonly string[]) => segs.map((seg) => (/^\{.+\}$/.test(seg) ? (take(seg.slice(1, -1)) ?? '') : seg));
    const keyPath = fill(r.shape.keyPath);
    const identity = new Set(r.shape.identity.map((i) => i.name));
    const lifted = r.shape.lifted ?? {};
    for (const [k, v] of Object.entries(r.body)) {
      if (IGNORED_META.has(k)) continue;
      if (REFUSED_META.has(k)) {
        out.located.push({
          severity: 'error',
          code: 'PLUMB_CDKTF_META_ARGUMENT',
          summary: `"${k}" is not supported on plumb resources (construct ${r.constructPath})`,
          detail: 'plumb reads the synthesized resources, not a Terraform graph: each plumb resource must be one construct.',
          suggestion: 'create one construct per resource in a TypeScript loop instead',
          location: { file: r.constructPath, line: 1, column: 1 },
        });
        continue;
      }
      if (identity.has(k) || k in lifted) continue;
      fields[k] = k === 'access_level' && typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : unwrapBlocks(v);
    }
    // References are resolved against the other plumb resources of the stack, after the identity.
    const resolved = resolveAll(fields, where(keyPath), r, resources, out);
    const doc = nest([...base, ...keyPath], resolved as Record<string, Json>);
    for (const [attr, l] of Object.entries(lifted)) {
      const v = r.body[attr];
      if (v === undefined || v === null) continue;
      const at = fill(l.keyPath);
      const value = resolveAll(unwrapLifted(v), where(at), r, resources, out);
      if (liftOnce(where(at), attr, value, r, stated, out)) setAt(doc, [...base, ...at], value);
    }
    addDocument(out, appDir, r.constructPath, doc);
    const origin = r.trace ? originOf(r.trace, appDir, cwd) : undefined;
    if (origin) out.origins.set(r.constructPath, origin);
  }
}

/** Identity attributes (group, name, project, file_path) must be literal: they decide where the resource goes. */
function identityReferences(r: Resource, out: StackDocuments): void {
  for (const k of r.shape.identity.map((i) => i.name)) {
    const v = r.body[k];
    if (typeof v !== 'string' || !new RegExp(EXPRESSION.source).test(v)) continue;
    out.located.push({
      severity: 'error',
      code: 'PLUMB_CDKTF_REFERENCE',
      summary: `"${k}" of construct ${r.constructPath} is a Terraform expression (${v}); plumb needs its value`,
      detail: 'The group, project, token name and file path say which resource this is; they must be known when plumb plans.',
      suggestion: "pass the value itself (a TypeScript constant or variable) instead of another construct's attribute",
      location: { file: r.constructPath, line: 1, column: 1 },
    });
  }
}

function instanceOf(r: Resource, stack: string): string {
  const p = r.body.provider;
  if (typeof p === 'string') {
    const m = /^plumb\.(.+)$/.exec(p);
    if (m) return m[1]!;
  }
  return stack;
}

/**
 * A nested block (an attribute's value) synthesizes as an object or, from some code paths, a
 * one-element list of one. Only the attribute level is unwrapped: inside a `hash` setting's value a
 * list of one object is data (`allowed_to_push: [{access_level: 40}]`).
 */
function unwrapBlocks(v: Json): Json {
  return Array.isArray(v) && v.length === 1 && isObject(v[0]) ? v[0] : v;
}

function resolveAll(v: Json, pointer: string, r: Resource, resources: ReadonlyMap<string, Resource>, out: StackDocuments, seen: string[] = []): Json {
  if (Array.isArray(v)) return v.map((x, i) => resolveAll(x, joinPointer(pointer, i), r, resources, out, seen));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveAll(x, joinPointer(pointer, k), r, resources, out, seen)]));
  if (typeof v !== 'string' || !v.includes('${')) return v;
  const matches = [...v.matchAll(EXPRESSION)];
  if (matches.length === 0) return v;
  const refuse = (expr: string, why: string, suggestion: string): Json => {
    out.pending.push({
      severity: 'error',
      code: 'PLUMB_CDKTF_REFERENCE',
      summary: `\${${expr}} in construct ${r.constructPath} cannot be resolved: ${why}`,
      detail: 'plumb resolves references to literal attributes of plumb resources in the same stack; everything else is a Terraform expression it does not evaluate.',
      suggestion,
      pointer,
    });
    // Keep it as text: later checks of this value stay silent (see loadCdktfConfig).
    return v.replace(/\$\{/g, () => '$${');
  };
  const values: Json[] = [];
  for (const m of matches) {
    const expr = m[1]!.trim();
    const variable = /^var\.([A-Za-z_][A-Za-z0-9_-]*)$/.exec(expr);
    if (variable) return secretVariable(variable[1]!, v, pointer, r, refuse);
    const ref = REFERENCE.exec(expr);
    if (!ref) {
      return refuse(expr, 'it is not a reference to a plumb resource', 'compute the value in TypeScript, or reference an attribute of a plumb construct');
    }
    const target = resources.get(`${ref[1]}.${ref[2]}`);
    if (!target) return refuse(expr, `there is no plumb resource ${ref[1]}.${ref[2]} in stack ${r.stack}`, 'reference a construct of the same stack');
    if (seen.includes(`${ref[1]}.${ref[2]}`)) return refuse(expr, 'the references form a cycle', 'break the cycle with a literal value');
    let value: Json | undefined = target.body;
    for (const part of ref[3]!.split(/\.|(?=\[)/).filter(Boolean)) {
      if (part === '[0]') value = Array.isArray(value) ? value[0] : value;
      else value = isObject(value) ? value[part] : undefined;
    }
    if (value === undefined || value === null) {
      return refuse(expr, `${ref[1]}.${ref[2]} does not set "${ref[3]!.slice(1)}" (plumb knows only the attributes written in the app, not values the instance computes)`, 'write the value in TypeScript, or set the attribute on the referenced construct');
    }
    values.push(resolveAll(unwrapBlocks(value), pointer, target, resources, out, [...seen, `${r.type}.${r.name}`]));
  }
  // A string that is exactly one reference takes the referenced value with its type (a list, a number…).
  if (matches.length === 1 && matches[0]![0] === v) return values[0]!;
  let i = 0;
  return v.replace(EXPRESSION, () => {
    const x = values[i++];
    return typeof x === 'string' ? x : JSON.stringify(x);
  });
}

/**
 * A secret setting given a Terraform variable (`captcha_private_key: captchaKey.stringValue`, i.e.
 * `${var.captcha_key}`): the one way a secret passes through both doors. Terraform reads it from
 * `TF_VAR_captcha_key` (or `-var`); plumb reads the same environment variable, as `${env:…}`, so
 * it is a secret to plumb too (masked, fingerprinted). Only a variable the stack declares, without a
 * default (it would be a secret in the synthesized JSON), marked sensitive or ephemeral, the whole
 * value of a secret setting: the configuration (a merge request) cannot route any other variable
 * of plumb's environment anywhere (docs/security.md).
 */
function secretVariable(name: string, value: string, pointer: string, r: Resource, refuse: (expr: string, why: string, suggestion: string) => Json): Json {
  const expr = `var.${name}`;
  // Where the value sits in plumb's document: a place where the kinds read a secret from outside
  // the configuration (`${env:…}` in YAML: a secret setting, a file's content, a CI/CD variable's value).
  if (!interpolationAllowed(pointer, r.places) || value !== `\${${expr}}`) {
    return refuse(expr, "plumb reads a Terraform variable only as the whole value of a secret setting, a file's content or a CI/CD variable's value", 'compute the value in TypeScript; a secret setting (captchaPrivateKey, …) or a CI/CD variable\'s value may be a sensitive TerraformVariable (docs/cdktf.md#secrets)');
  }
  const decl = r.variables[name];
  if (!isObject(decl)) return refuse(expr, `the stack declares no variable "${name}"`, `declare it: new TerraformVariable(stack, '${name}', { type: 'string', sensitive: true })`);
  if (decl.default !== undefined) return refuse(expr, `variable "${name}" has a default, which puts the secret in the synthesized stack`, `remove the default and set TF_VAR_${name} in the environment of plumb and terraform`);
  if (decl.sensitive !== true && decl.ephemeral !== true) return refuse(expr, `variable "${name}" is not marked sensitive`, `declare it with sensitive: true, so Terraform masks it too`);
  return `\${env:TF_VAR_${name}}`;
}

/** `value` at `keys`. */
function nest(keys: readonly string[], value: Record<string, Json>): Record<string, Json> {
  let doc: Json = value;
  for (let i = keys.length - 1; i >= 0; i--) doc = { [keys[i]!]: doc };
  return doc as Record<string, Json>;
}

function setAt(doc: Record<string, Json>, keys: readonly string[], value: Json): void {
  let at = doc;
  for (const k of keys.slice(0, -1)) {
    if (!isObject(at[k])) at[k] = {};
    at = at[k] as Record<string, Json>;
  }
  at[keys[keys.length - 1]!] = value;
}

/**
 * Whether this construct's document states the lifted value: the first construct stating it for
 * its container does; a later one stating the same value does not (plumb declares it once); a
 * later one stating another does too, so the merge stage reports the two definitions, located at
 * both constructs, in the words recorded here.
 */
function liftOnce(pointer: string, attr: string, value: Json, r: Resource, stated: Map<string, Stated>, out: StackDocuments): boolean {
  const { constructPath } = r;
  const json = JSON.stringify(value);
  const first = stated.get(pointer);
  if (!first) {
    stated.set(pointer, { constructPath, json });
    return true;
  }
  if (first.json === json) return false;
  out.disagreements.set(disagreementKey(pointer, constructPath), {
    code: 'PLUMB_CDKTF_DELIVERY_MISMATCH',
    first: first.constructPath,
    summary: `Constructs ${first.constructPath} and ${constructPath} state ${describePointer(pointer, r.places)} differently`,
    detail: `${attr} is the project's, not one file's: plumb delivers all changed files of a project one way (one commit per branch, or one merge request). ${first.constructPath} says ${first.json}; ${constructPath} says ${json}.`,
    suggestion: `give every file of the project the same ${attr} (one shared constant), or state it on one of them only`,
  });
  return true;
}

/** One document, shown as `file`; paths in it resolve against the app's directory. */
function addDocument(out: StackDocuments, appDir: string, file: string, doc: Record<string, Json>): void {
  const whole = { version: 1, ...doc };
  // JSON.stringify leaves DEL and the C1 controls as they are: escaped, the text a code frame shows
  // cannot drive a terminal, and it still parses to the same value (a YAML file would be refused).
  const text = JSON.stringify(whole, null, 2).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) + '\n';
  out.documents.push({ abs: path.join(appDir, encodeURIComponent(file)), file, text, value: JSON.parse(text) as Record<string, unknown> });
}

/** The first frame of a construct's creation stack that lies in the app's own code, when the synth metadata carries one. */
export function originOf(trace: readonly string[], appDir: string, cwd: string): SourceLocation | undefined {
  for (const line of trace) {
    // An absolute path (cdktf's own metadata), or one relative to the app (plumb's constructs record those).
    const m = /(?:\(|\bat |^)((?:file:\/\/)?\/[^():]+|[A-Za-z]:\\[^():]+|[^\s():][^():]*):(\d+):(\d+)\)?\s*$/.exec(line);
    if (!m) continue;
    const named = m[1]!.replace(/^file:\/\//, '');
    const file = path.isAbsolute(named) ? named : path.resolve(appDir, named);
    // Frames of libraries and of plumb's own constructs are not the app's code.
    if (/[\\/](node_modules|generated[\\/]cdktf)[\\/]/.test(file) || !file.startsWith(appDir + path.sep)) continue;
    const rel = path.relative(cwd, file);
    return { file: rel.startsWith('..') ? file : rel.split(path.sep).join('/'), line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}
