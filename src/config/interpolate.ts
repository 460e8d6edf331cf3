/**
 * `${env:NAME}` and `${file:path}`: where they may be written (the kinds' places say), reading the
 * variable or file, and registering what was read as a secret.
 */
import path from 'node:path';
import { splitPointer } from './pointer.js';
import { unavailableValue } from './secrets.js';
import { LocalFileError, readLocalFile } from './files.js';
import { fileErrorSentence } from '../util/file-error.js';
import { asInstanceSegments, describePointer } from './places.js';
import { reportAt } from './loading.js';
import type { WalkContext } from './loading.js';
import { credentialName, holdsCredential } from './credentials.js';

const REFERENCE = /^\$\{(env|file):([^}]*)\}/;
/** `${env:NAME:-}`: the value may be empty (or unset); the only default plumb knows is the empty one. */
const MAY_BE_EMPTY = ':-';

/**
 * `${env:NAME}` and `${file:path}` (relative to the file that says it); `$${` writes a literal `${`.
 * Any other `${` is an error rather than text, so a typo never ships a literal placeholder.
 * Anything interpolated is a secret from here on: it is masked in every output.
 */
export function interpolate(raw: string, pointer: string, ctx: WalkContext, allowed: boolean): string {
  let secret = false;
  let failed = false;
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const at = raw.indexOf('${', i);
    if (at < 0) {
      out += raw.slice(i);
      break;
    }
    if (at > 0 && raw[at - 1] === '$') {
      out += raw.slice(i, at - 1) + '${';
      i = at + 2;
      continue;
    }
    out += raw.slice(i, at);
    const m = REFERENCE.exec(raw.slice(at));
    if (!m) {
      const shown = raw.slice(at, raw.indexOf('}', at) >= 0 ? raw.indexOf('}', at) + 1 : undefined);
      ctx.pending.push({
        severity: 'error',
        code: 'PLUMB_INTERPOLATION_SYNTAX',
        summary: `"${shown.length > 40 ? shown.slice(0, 40) + '…' : shown}" is not a valid reference`,
        detail: 'plumb interpolates ${env:NAME} and ${file:path} only.',
        suggestion: 'write ${env:NAME} or ${file:path}, or $${ for a literal "${"',
        pointer,
        fileIndex: ctx.fileIndex,
      });
      return '';
    }
    if (!allowed) {
      // Nothing is read: the variable or file never reaches the value.
      interpolationRefused(m[0], pointer, ctx);
      return '';
    }
    const kind = m[1]!;
    let name = m[2]!.trim();
    const mayBeEmpty = name.endsWith(MAY_BE_EMPTY);
    if (mayBeEmpty) name = name.slice(0, -MAY_BE_EMPTY.length).trim();
    i = at + m[0].length;
    if (kind === 'env' && name.includes(MAY_BE_EMPTY)) {
      reportAt(ctx, {
        severity: 'error',
        code: 'PLUMB_INTERPOLATION_SYNTAX',
        summary: `"${m[0]}" gives a default value; plumb knows only an empty one`,
        detail: 'A default written in the configuration is not a secret; ${env:NAME:-} only allows the variable to be empty or unset.',
        suggestion: `write \${env:${name.slice(0, name.indexOf(MAY_BE_EMPTY))}:-} and set the value in the environment`,
        pointer,
      });
      failed = true;
      continue;
    }
    const credential = kind === 'env' ? credentialName(name, ctx.credentials) : undefined;
    if (credential) {
      // Refused by its name, before it is read.
      credentialRefused(m[0], credential, pointer, ctx);
      failed = true;
      continue;
    }
    const value =
      kind === 'env'
        ? readEnv(name, m[0], pointer, ctx, mayBeEmpty)
        : readFileRef(name, pointer, ctx, mayBeEmpty);
    if (value === undefined) {
      failed = true; // keep going: every missing reference is reported
      continue;
    }
    if (value !== '' && holdsCredential(value, ctx.credentials)) {
      // A copy of a credential under another name (the CI component copies its token variable into
      // token_env), or a file holding one: as refused as the variable itself, and never shown.
      credentialRefused(m[0], `${kind === 'env' ? `${name}` : `"${name}"`} holds the same value as a token plumb or the CI uses`, pointer, ctx);
      failed = true;
      continue;
    }
    if (value === '' && !mayBeEmpty) {
      reportAt(ctx, {
        severity: 'error',
        code: kind === 'env' ? 'PLUMB_ENV_EMPTY' : 'PLUMB_FILE_EMPTY',
        summary: kind === 'env' ? `Environment variable ${name} is set but empty` : `"${name}" is empty`,
        detail: `An empty value read from \${${kind}:${name}} would be written to the instance as "" (over a secret, too). A CI variable that is protected is empty on an unprotected branch.`,
        suggestion: `give ${kind === 'env' ? name : 'the file'} a value, or write \${${kind}:${name}:-} if an empty value is intended`,
        pointer,
      });
      failed = true;
      continue;
    }
    if (value.length > 0 && value.length < MIN_SECRET_LENGTH) {
      reportAt(ctx, {
        severity: 'error',
        code: 'PLUMB_SECRET_TOO_SHORT',
        summary: `The value of ${m[0]} is shorter than ${MIN_SECRET_LENGTH} characters`,
        detail: `Every interpolated value is a secret, masked wherever it appears in output; a value of ${value.length} character(s) cannot be masked without masking ordinary text too, so it would be shown.`,
        suggestion: 'a value that short is not a secret: write it in the configuration itself; a real secret is longer (give the variable or file its whole value)',
        pointer,
      });
      failed = true;
      continue;
    }
    secret = true;
    ctx.secrets.add(value);
    out += value;
  }
  if (secret) ctx.secrets.markPointer(pointer);
  return failed ? '' : out;
}

/**
 * The configuration text that reads back as `text` itself, never as a reference: every `${` written
 * `$${` (what {@link interpolate} turns back into `${`). Export writes instance text this way.
 */
export function literalText(text: string): string {
  // A function, not a string: in a replacement string `$$` itself means one `$`.
  return text.replaceAll('${', () => '$${');
}

/** The text a {@link literalText} stands for: what the configuration read back as (for values export keeps). */
export function fromLiteralText(text: string): string {
  return text.replaceAll('$${', () => '${');
}

/** Secrets shorter than this are refused: they cannot be masked in free text (secrets.ts). */
const MIN_SECRET_LENGTH = 4;

const CONNECTION_KEYS = new Set(['url', 'token_env', 'token', 'ca_bundle', 'allow_insecure_http', 'settings_verify_seconds', 'allow_risky']);

function interpolationRefused(reference: string, pointer: string, ctx: WalkContext): void {
  const segs = asInstanceSegments(splitPointer(pointer));
  const connection = segs[0] === 'instances' && segs.length >= 3 && CONNECTION_KEYS.has(segs[2]!);
  const setting = segs[0] === 'instances' && segs[2] === 'settings' && segs.length >= 4;
  reportAt(ctx, {
    severity: 'error',
    code: 'PLUMB_INTERPOLATION_NOT_ALLOWED',
    summary: `${capitalized(describePointer(pointer, ctx.places))} cannot be interpolated (${reference.length > 40 ? reference.slice(0, 40) + '…' : reference})`,
    detail: connection
      ? 'The connection (url, token_env, ca_bundle, allow_insecure_http, …) is written out in the configuration: a merge request that could interpolate it could send the token, and any variable or file, to another host. Which instances the token may go to is set outside the configuration (docs/config.md#where-the-token-may-go).'
      : setting
        ? `"${segs[3]}" is not a secret setting: the instance shows its value (many settings to every visitor, signed in or not), so a variable or file read into it would be published. Only write-only settings (docs/settings.md marks them Secret) and a repository file's content read from the environment or files. Nothing was read.`
        : 'Only secret values (write-only settings, a repository file\'s content) are read from the environment or files. This value becomes part of a request (its path or query: a branch, a group, a path) or of what plumb does locally, so a variable or file read into it would travel to the instance, into its logs, or elsewhere. Nothing was read.',
    suggestion: connection
      ? 'write the value itself; for one configuration per environment, use a directory per environment (docs/config.md#shared-defaults)'
      : 'write the value itself (for `$` followed by `{`, write $${)',
    pointer,
  });
}

function credentialRefused(reference: string, why: string, pointer: string, ctx: WalkContext): void {
  reportAt(ctx, {
    severity: 'error',
    code: 'PLUMB_INTERPOLATION_CREDENTIAL',
    summary: `${capitalized(describePointer(pointer, ctx.places))} may not interpolate ${reference}: ${why}`,
    detail:
      'No configuration value may read a credential plumb or the CI uses (every token_env of the configuration, PLUMB_TOKEN and the CI component\'s token variables, CI_JOB_TOKEN, CI_REGISTRY_PASSWORD, CI_DEPLOY_PASSWORD, CI_DEPENDENCY_PROXY_PASSWORD, CI_JOB_JWT*, …): apply would write it into the instance, which may hand it on. Its value was not used.',
    suggestion: 'give the secret its own CI/CD variable (masked, protected) and reference that one',
    pointer,
  });
}

function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Where an unset variable may stand for an unavailable secret: an application setting's value. */
const SETTING_POINTER = /^\/(?:instances\/[^/]+|defaults)\/settings\/[^/]+$/;

function readEnv(name: string, match: string, pointer: string, ctx: WalkContext, mayBeEmpty: boolean): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    ctx.pending.push({
      severity: 'error',
      code: 'PLUMB_INTERPOLATION_SYNTAX',
      summary: `"${match}" is not a valid environment reference`,
      suggestion: 'write ${env:NAME} with a variable name made of letters, digits and underscores',
      pointer,
      fileIndex: ctx.fileIndex,
    });
    return undefined;
  }
  const value = ctx.env[name];
  if (value === undefined && mayBeEmpty) return '';
  if (value === undefined && ctx.unavailableSecrets && SETTING_POINTER.test(pointer)) {
    ctx.pending.push({
      severity: 'info',
      code: 'PLUMB_SECRET_UNAVAILABLE',
      summary: `Environment variable ${name} is not set in this pipeline: this setting is not compared here (the plan shows it as a new value)`,
      detail: `--unavailable-secrets skip: \${env:${name}} is taken for a secret this pipeline is not given (a protected variable in a merge-request pipeline). Apply still needs it.`,
      pointer,
      fileIndex: ctx.fileIndex,
    });
    return unavailableValue(`\${env:${name}}`);
  }
  if (value === undefined) {
    ctx.reported.addSubtree(pointer);
    ctx.pending.push({
      severity: 'error',
      code: 'PLUMB_ENV_MISSING',
      summary: `Environment variable ${name} is not set`,
      detail: `This value is read from \${env:${name}}.`,
      suggestion: `export ${name} before running plumb (in CI, define it as a masked variable)`,
      pointer,
      fileIndex: ctx.fileIndex,
    });
  }
  return value;
}

/**
 * The file's text without a byte order mark (an editor's encoding mark is not part of the secret)
 * and without one final line break.
 */
function readFileRef(name: string, pointer: string, ctx: WalkContext, mayBeEmpty: boolean): string | undefined {
  const target = path.resolve(path.dirname(ctx.abs), name);
  try {
    return readLocalFile(target, 'secret', ctx.roots).toString('utf8').replace(/^\uFEFF/, '').replace(/\r?\n$/, '');
  } catch (err) {
    if (mayBeEmpty && (err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    const refused = err instanceof LocalFileError && err.code === 'PLUMB_LOCAL_FILE_REFUSED';
    ctx.reported.addSubtree(pointer);
    ctx.pending.push({
      severity: 'error',
      code: refused ? 'PLUMB_LOCAL_FILE_REFUSED' : 'PLUMB_FILE_MISSING',
      summary: `${refused ? 'Refused to read' : 'Cannot read'} "${name}" for \${file:${name}}: ${fileErrorSentence(err)}`,
      detail: `Paths are relative to the file that references them (${path.dirname(ctx.file) || '.'}).`,
      suggestion: refused
        ? 'keep the file inside the configuration root as a regular file, or list its directory in PLUMB_FILE_ROOTS (docs/config.md#local-files)'
        : 'check the path, or create the file',
      pointer,
      fileIndex: ctx.fileIndex,
    });
    return undefined;
  }
}
