/**
 * The words plumb writes into a merge request and its commit (docs/config.md#delivering-files):
 * the commit message with its trailers, and the description listing the files and linking the plan.
 *
 * Paths and the job URL are data, never markup: a path is written in a code span whose fence is
 * longer than any run of backticks in it, and HTML-significant characters are escaped, so a file
 * named `<img src=x>` or `[x](javascript:…)` renders as its name. The admin's own `description` is
 * written as given (it is the configuration's text, reviewed like the rest of it).
 */
import type { FilePayload } from './payload.js';
import { FILE_TRAILER, INSTANCE_TRAILER, fileDigest } from './merge-request.js';
import type { MergeRequestPayload } from './merge-request.js';

const VERB: Record<string, string> = { create: 'create', update: 'update', delete: 'delete' };

/** A path as inline code that renders as the path, whatever characters it holds. */
export function codeSpan(path: string): string {
  const escaped = path.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const longest = Math.max(0, ...[...path.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = path.startsWith('`') || path.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${escaped}${pad}${fence}`;
}

/** The job's URL when it is a plain http(s) URL (CI_JOB_URL); anything else is not linked. */
export function descriptionJobLink(env: NodeJS.ProcessEnv | undefined): string | undefined {
  const url = env?.CI_JOB_URL;
  if (url === undefined || !/^https?:\/\/[A-Za-z0-9.-]+(:\d+)?(\/[A-Za-z0-9._~\-/%]*)?$/.test(url)) return undefined;
  return url;
}

/** The message of plumb's commit on a merge request's branch: what it does, the files, and the trailers the next plan reads. */
export function deliveryCommitMessage(instance: string, p: Pick<MergeRequestPayload, 'targetBranch' | 'files'>, skipCi = false): string {
  const n = p.files.length;
  const lines = [`plumb: deliver ${n} file${n === 1 ? '' : 's'} to ${p.targetBranch}${skipCi ? ' [skip ci]' : ''}`, ''];
  for (const f of p.files) lines.push(`- ${VERB[f.op] ?? f.op} ${f.path}`);
  lines.push('', `${INSTANCE_TRAILER}: ${instance}`);
  for (const f of p.files) {
    const d = fileDigest(f);
    if (d !== null) lines.push(`${FILE_TRAILER}: ${d}`);
  }
  return lines.join('\n');
}

/** The merge request's description: the admin's text, the files, and where the plan is. */
export function deliveryDescription(p: Pick<MergeRequestPayload, 'targetBranch' | 'files' | 'description'>, env: NodeJS.ProcessEnv | undefined): string {
  const out: string[] = [];
  if (p.description !== undefined && p.description.trim() !== '') out.push(p.description.trimEnd(), '');
  out.push(`plumb delivers these files to ${codeSpan(p.targetBranch)} as the configuration declares them:`, '');
  for (const f of p.files as readonly FilePayload[]) out.push(`- ${VERB[f.op] ?? f.op} ${codeSpan(f.path)}`);
  const job = descriptionJobLink(env);
  out.push('', job ? `The plan: ${job} (the job that wrote this merge request shows the plan it applied).` : 'The plan: run `plumb plan` on the configuration (no CI job URL was set when this was written).');
  out.push('', '<!-- plumb: this merge request is kept up to date by plumb; a push to its branch makes plumb leave it alone. -->');
  return out.join('\n');
}
