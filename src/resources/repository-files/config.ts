/**
 * The repository files' part of resolving a configuration: `instances.<name>.projects.<ref>.files`.
 * (The schema pass reports unknown keys and wrong types; this resolves the valid ones.)
 *
 * A `source:` written as text (the default encoding) is not read here: plan hashes it streaming and
 * apply reads it when it writes, so a large file never sits in memory while planning. A base64
 * source is read (and checked) here, as inline content is.
 */
import { fileErrorSentence } from '../../util/file-error.js';
import { checkLocalFile, LocalFileError, readLocalFile } from '../../config/files.js';
import type { KindConfig, KindSchema, ResolveAt } from '../../config/kinds.js';
import type { DesiredInstance } from '../../config/model.js';
import type { DesiredFile, FilesProject } from './model.js';
import { filesOf } from './model.js';
import { fileSchema } from './schema.js';
import { deliverySchema, resolveDelivery } from './delivery.js';
import { checkBranchName } from './branch-name.js';
import { joinPointer } from '../../config/pointer.js';
import type { KindPointer } from '../../config/pointer.js';
import { at, obj, push, relativeToFile, rootsOf } from '../../config/resolve-context.js';
import type { Ctx } from '../../config/resolve-context.js';

/** A file is one resource, defined in one file of the configuration. */
export const FILE_POINTERS: readonly KindPointer[] = [
  // Only the content: branches, start_branch and the path are in request URLs, source is a local path.
  { pattern: ['instances', '*', 'projects', '*', 'files', '*'], resource: true, describe: (s) => `file "${s[5]}" of project "${s[3]}"`, interpolation: [['content']] },
  { pattern: ['instances', '*', 'projects', '*', 'delivery'], resource: true, describe: (s) => `the delivery of project "${s[3]}"` },
];

export type FileAction = 'create' | 'update' | 'delete';

/** The placeholders a commit message template may use. */
export const TEMPLATE_PLACEHOLDERS = ['path', 'branch', 'project', 'action'] as const;

/** A project's declared files; an unusable one is reported and left out. */
export function resolveFiles(raw: unknown, p: string, ctx: Ctx): DesiredFile[] {
  const files: DesiredFile[] = [];
  for (const [filePath, f] of Object.entries(obj(raw))) {
    const file = resolveFile(filePath, obj(f), joinPointer(p, filePath), ctx);
    if (file) files.push(file);
  }
  return files;
}

/** C0 and C1 control characters and DEL: a newline or ESC in a path is never a file anyone meant. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function resolveFile(filePath: string, raw: Record<string, unknown>, p: string, ctx: Ctx): DesiredFile | undefined {
  const segments = filePath.split('/');
  if (CONTROL.test(filePath)) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_FILE_PATH_TRAVERSAL',
      summary: `File path ${JSON.stringify(filePath).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)} holds a control character`,
      detail: 'A newline, ESC or other control character in a path forges lines in logs, plans and commit messages, and breaks the tools that read them.',
      suggestion: 'write the path with printable characters only',
      pointer: p,
      on: 'key',
    });
    return undefined;
  }
  // `.git` in any case: a checkout on a case-insensitive file system reads `.GIT/hooks` as its hooks.
  if (segments.some((s) => s.toLowerCase() === '.git')) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_FILE_PATH_TRAVERSAL',
      summary: `File path "${filePath}" is inside .git/`,
      detail: "Files under .git/ (hooks, config) are Git's own, and run or take effect in every clone that receives them.",
      suggestion: 'manage files of the work tree only',
      pointer: p,
      on: 'key',
    });
    return undefined;
  }
  if (filePath.startsWith('/') || segments.some((s) => s === '..' || s === '.' || s === '') || filePath.includes('\\') || filePath.includes('\0')) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_FILE_PATH_TRAVERSAL',
      summary: `File path "${filePath}" is not a plain path inside the repository`,
      detail: 'Paths must be relative, without "..", "." or empty segments; the instance rejects directory traversal.',
      suggestion: 'write the path from the repository root, e.g. docs/README.md',
      pointer: p,
      on: 'key',
    });
    return undefined;
  }
  const state = raw.state === 'absent' ? 'absent' : 'present';
  const encoding = raw.encoding === 'base64' ? 'base64' : 'text';
  let content: Buffer | undefined;
  let source: string | undefined;
  let secret = ctx.sources.secrets.isSecretPointer(joinPointer(p, 'content'));
  if (state === 'present') {
    const hasContent = typeof raw.content === 'string';
    const hasSource = typeof raw.source === 'string';
    if (hasContent === hasSource) {
      push(ctx, {
        severity: 'error',
        code: hasContent ? 'PLUMB_FILE_CONTENT_BOTH' : 'PLUMB_FILE_CONTENT_MISSING',
        summary: hasContent ? `File "${filePath}" has both content and source` : `File "${filePath}" has no content`,
        suggestion: 'give exactly one of `content:` (inline) or `source:` (a local file)',
        pointer: p,
        on: 'key',
      });
    } else if (hasContent) {
      content = decode(raw.content as string, encoding, joinPointer(p, 'content'), ctx);
    } else {
      const sp = joinPointer(p, 'source');
      const src = relativeToFile(ctx, sp, raw.source as string);
      const roots = rootsOf(ctx, sp);
      try {
        // Only inside the configuration root, a regular file within the cap (src/config/files.ts);
        // the checked real path is what plan hashes and apply reads.
        if (encoding === 'base64') content = decode(readLocalFile(src, 'source', roots).toString('utf8'), 'base64', sp, ctx);
        else {
          source = checkLocalFile(src, 'source', roots);
          ctx.localReads.set(source, `the source of repository file "${filePath}"`);
        }
      } catch (err) {
        const refused = err instanceof LocalFileError && err.code === 'PLUMB_LOCAL_FILE_REFUSED';
        push(ctx, {
          severity: 'error',
          code: refused ? 'PLUMB_LOCAL_FILE_REFUSED' : 'PLUMB_FILE_MISSING',
          summary: `${refused ? 'Refused to read' : 'Cannot read'} source "${String(raw.source)}": ${fileErrorSentence(err)}`,
          suggestion: refused ? 'keep the source inside the configuration root, as a regular file (docs/config.md#local-files)' : 'give a path relative to this YAML file',
          pointer: sp,
        });
      }
      secret = false;
    }
  }
  if (state === 'absent') {
    for (const key of ['content', 'source'] as const) {
      if (raw[key] === undefined) continue;
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_FILE_ABSENT_WITH_CONTENT',
        summary: `File "${filePath}" is declared \`state: absent\` and has ${key}`,
        detail: 'An absent file is deleted; its content would never be written, so one of the two is a mistake.',
        suggestion: `remove \`${key}:\` to delete the file, or remove \`state: absent\` to write it`,
        pointer: joinPointer(p, key),
        on: 'key',
      });
    }
  }
  checkBranches(raw, p, ctx);
  if (typeof raw.author_email === 'string' && !/^[^\s@<>]+@[^\s@<>]+$/.test(raw.author_email)) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_STRING_FORMAT',
      summary: `author_email "${raw.author_email}" is not an email address`,
      suggestion: 'write an address such as plumb@example.com (the name goes in author_name)',
      pointer: joinPointer(p, 'author_email'),
    });
  }
  const messages = obj(raw.commit_messages);
  const template = (action: FileAction): string | undefined => {
    const own = messages[action];
    if (typeof own === 'string') return own;
    return typeof raw.commit_message === 'string' ? raw.commit_message : undefined;
  };
  checkTemplates(raw, p, ctx);
  return {
    path: filePath,
    pointer: p,
    branches: Array.isArray(raw.branches) ? raw.branches.map(String) : [],
    startBranch: typeof raw.start_branch === 'string' ? raw.start_branch : undefined,
    state,
    content,
    source,
    encoding,
    executeFilemode: typeof raw.execute_filemode === 'boolean' ? raw.execute_filemode : undefined,
    commitMessages: { create: template('create'), update: template('update'), delete: template('delete') },
    authorName: typeof raw.author_name === 'string' ? raw.author_name : undefined,
    authorEmail: typeof raw.author_email === 'string' ? raw.author_email : undefined,
    secret,
  };
}

/** `{{` and `}}` (literal braces), or a `{name}` placeholder. */
const TEMPLATE_TOKEN = /\{\{|\}\}|\{([^{}]*)\}/g;

/**
 * A `{name}` in a commit message template that is not a placeholder is a typo worth stopping for;
 * so is a Mustache-style `{{path}}` (plumb's placeholders take one brace; `{{` is a literal brace).
 */
function checkTemplates(raw: Record<string, unknown>, p: string, ctx: Ctx): void {
  const check = (text: unknown, pointer: string) => {
    if (typeof text !== 'string') return;
    for (const m of text.matchAll(/(?<!\{)\{\{\s*([A-Za-z_]+)\s*\}\}(?!\})/g)) {
      if (!(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(m[1]!)) continue;
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_FILE_COMMIT_TEMPLATE',
        summary: `"${m[0]}" in a commit message is Mustache syntax; plumb's placeholders take one brace`,
        detail: '`{{` and `}}` write a literal brace, so this would put the text itself in every commit message.',
        suggestion: `did you mean "{${m[1]}}"?`,
        pointer,
      });
    }
    for (const m of text.matchAll(TEMPLATE_TOKEN)) {
      if (m[1] === undefined || (TEMPLATE_PLACEHOLDERS as readonly string[]).includes(m[1])) continue;
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_FILE_COMMIT_TEMPLATE',
        summary: `Unknown placeholder "{${m[1]}}" in a commit message`,
        detail: `A commit message may use ${TEMPLATE_PLACEHOLDERS.map((n) => `{${n}}`).join(', ')}; \`{{\` and \`}}\` write a literal brace.`,
        suggestion: `use one of those, or write "{{${m[1]}}}" for the literal text "{${m[1]}}"`,
        pointer,
      });
    }
  };
  check(raw.commit_message, joinPointer(p, 'commit_message'));
  for (const [action, text] of Object.entries(obj(raw.commit_messages))) check(text, joinPointer(p, 'commit_messages', action));
}

/**
 * The commit message for one write: the declared template (or plumb's default) with its
 * placeholders filled; `{{` and `}}` are literal braces.
 */
export function commitMessage(template: string | undefined, values: Readonly<Record<(typeof TEMPLATE_PLACEHOLDERS)[number], string>>): string {
  return (template ?? 'plumb: {action} {path}').replace(TEMPLATE_TOKEN, (whole, name: string | undefined) => {
    if (whole === '{{') return '{';
    if (whole === '}}') return '}';
    return name !== undefined && name in values ? values[name as keyof typeof values] : whole;
  });
}

/** The service's marker that keeps a commit from starting a pipeline (`[skip ci]` anywhere in its message). */
export const SKIP_CI = '[skip ci]';

/**
 * The message of one commit holding the planned writes (each with its own filled-in template):
 * one write's own message; several writes' shared message when they all have the same one (a
 * selector's `commit_message: "chore: sync files"`), else a summary line (`plumb: 2 files on main`)
 * and, after a blank line, each write's message in plan order. `skipCi` adds `[skip ci]` to the
 * first line.
 */
export function batchMessage(writes: readonly { readonly commitMessage: string; readonly branch: string; readonly skipCi?: boolean }[]): string {
  const messages = writes.map((w) => w.commitMessage);
  const message = new Set(messages).size === 1 ? messages[0]! : `plumb: ${writes.length} files on ${writes[0]!.branch}\n\n${messages.join('\n')}`;
  if (!writes.some((w) => w.skipCi) || message.toLowerCase().includes(SKIP_CI)) return message;
  const eol = message.indexOf('\n');
  return eol < 0 ? `${message} ${SKIP_CI}` : `${message.slice(0, eol)} ${SKIP_CI}${message.slice(eol)}`;
}

function decode(text: string, encoding: 'text' | 'base64', pointer: string, ctx: Ctx): Buffer | undefined {
  if (encoding === 'text') return Buffer.from(text, 'utf8');
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_FILE_BASE64',
      summary: 'Content is declared as base64 but is not valid base64',
      suggestion: 'fix the content, or remove `encoding: base64` to write it as text',
      pointer,
    });
    return undefined;
  }
  return Buffer.from(compact, 'base64');
}

/** Branch names Git refuses, and a start_branch equal to the branch it should create. */
function checkBranches(raw: Record<string, unknown>, p: string, ctx: Ctx): void {
  const branches = Array.isArray(raw.branches) ? raw.branches : [];
  branches.forEach((b, i) => {
    if (typeof b === 'string') checkBranchName(ctx, b, joinPointer(p, 'branches', i));
  });
  const start = raw.start_branch;
  if (typeof start !== 'string') return;
  if (checkBranchName(ctx, start, joinPointer(p, 'start_branch'), `start_branch "${start}"`)) return;
  if (branches.length > 0 && branches.every((b) => b === start)) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_FILE_START_BRANCH_SAME',
      summary: `start_branch "${start}" is the branch the file is written to`,
      detail: 'start_branch names the branch a missing branch is created from; a branch cannot be created from itself.',
      suggestion: 'remove start_branch, or name the existing branch to create the new one from (e.g. main)',
      pointer: joinPointer(p, 'start_branch'),
    });
  }
}

/** This kind's configuration side, carried by its registry entry (./index.ts). */
export const FILE_CONFIG: KindConfig = { kind: 'repository_file', pointers: FILE_POINTERS, mount: { container: 'projects', keys: ['files', 'delivery'], whole: ['delivery'] }, schema, resolve, check: checkLockPaths };

function resolve(raw: Readonly<Record<string, unknown>>, where: ResolveAt, ctx: Ctx): FilesProject | undefined {
  const files = resolveFiles(raw.files, joinPointer(where.pointer, 'files'), ctx);
  // Checked even without files: a mistake in it is one whatever the project declares.
  const delivery = resolveDelivery(raw.delivery, joinPointer(where.pointer, 'delivery'), where.instance, ctx);
  return files.length > 0 ? { ref: where.ref ?? '', pointer: where.pointer, files, delivery } : undefined;
}

function schema(): KindSchema {
  return {
    properties: { files: { type: 'object', additionalProperties: { $ref: '#/definitions/file' } }, delivery: { $ref: '#/definitions/delivery' } },
    definitions: { file: fileSchema(), delivery: deliverySchema() },
    standalone: { title: 'Repository file', file: 'repository-file.schema.json', body: fileSchema() },
  };
}

/**
 * The instance's lock file (`lock:`, docs/state.md#locking) is never a file the configuration
 * manages: apply would overwrite or delete a lock another apply holds, or be blocked by its own lock.
 */
function checkLockPaths(instances: readonly DesiredInstance[], ctx: Ctx): void {
  for (const inst of instances) {
    const lock = inst.lock;
    if (!lock) continue;
    // The service matches project paths without case; a numeric id and a path of one project cannot be told apart offline.
    const same = filesOf(inst).find((pr) => pr.ref.toLowerCase() === lock.project.toLowerCase());
    const declared = same?.files.find((f) => f.path === lock.path);
    if (!same || !declared) continue;
    const where = at(ctx, declared.pointer, 'key');
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_LOCK_PATH_DECLARED',
      summary: `The lock file "${lock.path}" of project "${lock.project}" is also declared as a repository file`,
      detail: 'apply creates and deletes the lock file itself; managing it as a file too would overwrite or delete a lock another apply holds, or be blocked by its own lock.',
      suggestion: 'give the lock a path of its own, e.g. locks/plumb.json, that no `files:` entry declares',
      pointer: joinPointer(lock.pointer, 'path'),
      ...(where && { related: [{ message: 'declared as a file here', location: where }] }),
    });
  }
}
