/**
 * The repository files' part of resolving a configuration: `instances.<name>.projects.<ref>.files`.
 * (The schema pass reports unknown keys and wrong types; this resolves the valid ones.)
 *
 * A `source:` written as text (the default encoding) is not read here: plan hashes it streaming and
 * apply reads it when it writes, so a large file never sits in memory while planning. A base64
 * source is read (and checked) here, as inline content is.
 */
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { fileErrorSentence } from '../../util/file-error.js';
import type { KindConfig } from '../kind-config.js';
import type { DesiredFile } from '../../config/model.js';
import { joinPointer } from '../../config/pointer.js';
import type { KindPointer } from '../../config/pointer.js';
import { obj, push, relativeToFile } from '../../config/resolve-context.js';
import type { Ctx } from '../../config/resolve-context.js';

/** A file is one resource, defined in one file of the configuration. */
export const FILE_POINTERS: readonly KindPointer[] = [
  { pattern: ['instances', '*', 'projects', '*', 'files', '*'], resource: true, describe: (s) => `file "${s[5]}" of project "${s[3]}"` },
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

function resolveFile(filePath: string, raw: Record<string, unknown>, p: string, ctx: Ctx): DesiredFile | undefined {
  const segments = filePath.split('/');
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
      const src = relativeToFile(ctx, joinPointer(p, 'source'), raw.source as string);
      try {
        if (encoding === 'base64') content = decode(readFileSync(src).toString('utf8'), 'base64', joinPointer(p, 'source'), ctx);
        else if (!statSync(src).isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
        else {
          accessSync(src, constants.R_OK);
          source = src;
        }
      } catch (err) {
        push(ctx, {
          severity: 'error',
          code: 'PLUMB_FILE_MISSING',
          summary: `Cannot read source "${String(raw.source)}": ${fileErrorSentence(err)}`,
          suggestion: 'give a path relative to this YAML file',
          pointer: joinPointer(p, 'source'),
        });
      }
      secret = false;
    }
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

/** A `{name}` in a commit message template that is not a placeholder is a typo worth stopping for. */
function checkTemplates(raw: Record<string, unknown>, p: string, ctx: Ctx): void {
  const check = (text: unknown, pointer: string) => {
    if (typeof text !== 'string') return;
    for (const m of text.matchAll(/\{([^{}]*)\}/g)) {
      if ((TEMPLATE_PLACEHOLDERS as readonly string[]).includes(m[1]!)) continue;
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_FILE_COMMIT_TEMPLATE',
        summary: `Unknown placeholder "{${m[1]}}" in a commit message`,
        detail: `A commit message may use ${TEMPLATE_PLACEHOLDERS.map((n) => `{${n}}`).join(', ')}.`,
        suggestion: 'use one of those, or remove the braces',
        pointer,
      });
    }
  };
  check(raw.commit_message, joinPointer(p, 'commit_message'));
  for (const [action, text] of Object.entries(obj(raw.commit_messages))) check(text, joinPointer(p, 'commit_messages', action));
}

/** The commit message for one write: the declared template (or plumb's default) with its placeholders filled. */
export function commitMessage(template: string | undefined, values: Readonly<Record<(typeof TEMPLATE_PLACEHOLDERS)[number], string>>): string {
  return (template ?? 'plumb: {action} {path}').replace(/\{(path|branch|project|action)\}/g, (_, k: keyof typeof values) => values[k]);
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

/** This kind's configuration side, for its KindModule and src/resources/config.ts. */
export const FILE_CONFIG: KindConfig = { kind: 'repository_file', pointers: FILE_POINTERS, resolvers: { resolveFiles } };
