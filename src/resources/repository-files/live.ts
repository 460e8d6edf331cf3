/**
 * What the plan and the apply of repository files share: where a file is (its address and lane),
 * how it is read from the instance (a HEAD per file and branch, whether a branch exists, one GET per
 * project), and how what was read is compared and shown.
 */
import { getProjectRef } from '../../api/namespaces.js';
import type { ProjectRef } from '../../api/namespaces.js';
import { ApiNotFoundError } from '../../api/errors.js';
import { getFile, getFileMetadata } from '../../api/repository-files.js';
import type { RepositoryFileMetadata } from '../../api/repository-files.js';
import { MASK } from '../../config/secrets.js';
import { stateFingerprint } from '../../engine/fingerprint.js';
import type { InstanceContext } from '../../engine/resource.js';
import type { DesiredFile } from './model.js';
import type { FilePayload } from './payload.js';

/** What a plan read of one file: where from, and its metadata (undefined: absent). */
export interface Base {
  /** The branch read: the declared one, or `start_branch` when the declared one lacks the file. */
  readonly readFrom: string;
  /** Set when the file was read from `start_branch` because the declared branch lacks it. */
  readonly startBranch?: string;
  readonly live: RepositoryFileMetadata | undefined;
}

export function fileAddress(instance: string, t: { project: string; branch: string; path: string }): string {
  return `${instance}.project[${JSON.stringify(t.project)}].branch[${JSON.stringify(t.branch)}].file[${JSON.stringify(t.path)}]`;
}

export const lane = (project: string, branch: string) => `${project}:${branch}`;

/** HEAD, with 404 meaning "no such file here". */
export async function head(ctx: InstanceContext, project: string, path: string, ref: string): Promise<RepositoryFileMetadata | undefined> {
  try {
    return await getFileMetadata(ctx.client, project, path, ref);
  } catch (err) {
    if (err instanceof ApiNotFoundError) return undefined;
    throw err;
  }
}

/**
 * The file as a write will find it: on its branch, or (when the branch lacks it and the file
 * declares `start_branch`) on the start branch, which a first write creates the branch from.
 */
export async function readBase(ctx: InstanceContext, project: string, path: string, branch: string, startBranch: string | undefined): Promise<Base> {
  const live = await head(ctx, project, path, branch);
  if (live || startBranch === undefined || startBranch === branch) return { readFrom: branch, live };
  return { readFrom: startBranch, startBranch, live: await head(ctx, project, path, startBranch) };
}


/**
 * Whether a branch exists, asked only after a HEAD on it answered 404 (a HEAD has no body: the file
 * or the branch may be missing). A HEAD of another file of the same project and branch that found
 * its file answers it (and that the project exists) without a request: the plan's HEADs on one
 * branch are noted as they start, and the question waits for them. Otherwise, as there is no branch
 * endpoint in the interface, a GET of the same file on that ref: "404 Commit Not Found" when the
 * ref does not exist, "404 File Not Found" when only the file is missing (both mean the project
 * exists). One request at most per project and branch per plan.
 */
export interface BranchCheck {
  /** A HEAD of a file on `branch` of `project` has started. */
  note(project: string, branch: string, head: Promise<RepositoryFileMetadata | undefined>): void;
  exists(project: string, branch: string, path: string): Promise<boolean>;
  /** Whether an answer about one of its files showed the project exists (no need to ask for it). */
  projectSeen(project: string): boolean;
}

export function branchChecker(ctx: InstanceContext): BranchCheck {
  const seen = new Map<string, Promise<boolean>>();
  const heads = new Map<string, Promise<RepositoryFileMetadata | undefined>[]>();
  const projects = new Set<string>();
  /** Whether one of the HEADs on the branch found its file: as soon as one does, or once all did not. */
  const anyFound = (list: readonly Promise<RepositoryFileMetadata | undefined>[]) =>
    new Promise<boolean>((resolve) => {
      let left = list.length;
      if (left === 0) resolve(false);
      for (const h of list) {
        h.then(
          (live) => (live ? resolve(true) : --left === 0 && resolve(false)),
          () => --left === 0 && resolve(false),
        );
      }
    });
  return {
    note(project, branch, head) {
      const key = lane(project, branch);
      const list = heads.get(key);
      if (list) list.push(head);
      else heads.set(key, [head]);
      head.then((live) => void (live && projects.add(project)), () => {});
    },
    exists(project, branch, path) {
      const key = lane(project, branch);
      let known = seen.get(key);
      if (!known) {
        known = anyFound(heads.get(key) ?? []).then((found) =>
          found
            ? true
            : getFile(ctx.client, project, path, branch).then(
                () => (projects.add(project), true),
                (err: unknown) => {
                  if (!(err instanceof ApiNotFoundError)) throw err;
                  const said = err.serverMessage ?? '';
                  if (/commit|ref|branch|file/i.test(said)) projects.add(project);
                  return !/commit|ref|branch/i.test(said);
                },
              ),
        );
        seen.set(key, known);
      }
      return known;
    },
    projectSeen: (project) => projects.has(project),
  };
}

/** What a plan learns about a file and its branch: the base to compare with, or why it cannot. */
export type PlanBase = (Base & { readonly branchMissing?: boolean }) | { readonly problem: 'branch-missing' | 'start-branch-missing' };

/**
 * The file as a write will find it. On its branch when the branch exists (even without the file:
 * then it is created there, never compared with `start_branch`); when the branch does not exist,
 * on `start_branch`, which the first write creates the branch from.
 */
export async function planBase(ctx: InstanceContext, project: string, file: DesiredFile, branch: string, branchExists: BranchCheck): Promise<PlanBase> {
  const pending = head(ctx, project, file.path, branch);
  branchExists.note(project, branch, pending);
  const live = await pending;
  if (live) return { readFrom: branch, live };
  // The selector's listing of this run showed the project with this branch as its default: the 404
  // is the file's (a new CODEOWNERS for a fleet costs its HEAD and its write, nothing more).
  if (listedBranch(ctx, project) === branch) return { readFrom: branch, live: undefined };
  if (await branchExists.exists(project, branch, file.path)) return { readFrom: branch, live: undefined };
  const start = file.startBranch;
  if (start === undefined || start === branch) return { problem: 'branch-missing' };
  const fromStart = await head(ctx, project, file.path, start);
  if (!fromStart && !(await branchExists.exists(project, start, file.path))) return { problem: 'start-branch-missing' };
  return { readFrom: start, startBranch: start, live: fromStart, branchMissing: true };
}

/** The default branch a selector's listing of this run showed for the project (undefined: not listed, or not said). */
export function listedBranch(ctx: InstanceContext, project: string): string | undefined {
  return ctx.listedProject?.(project)?.defaultBranch;
}

/** The live state a change was planned against. Without the SHA-256 for secret content: the last commit says when it moved. */
export function baseFingerprint(live: RepositoryFileMetadata | undefined, secret: boolean): string {
  if (!live) return stateFingerprint({ absent: true });
  return stateFingerprint({ ...(!secret && { sha256: live.content_sha256 ?? null }), execute: live.execute_filemode ?? null, commit: live.last_commit_id ?? null });
}

/** Whether the file on the instance is what the payload writes (`sha`: of the content written), or for a delete, gone. */
export function fileHolds(live: RepositoryFileMetadata | undefined, p: FilePayload, sha: string | undefined): boolean {
  if (p.op === 'delete') return live === undefined;
  return live !== undefined && live.content_sha256 === sha && (p.executeFilemode === undefined || live.execute_filemode === p.executeFilemode);
}

export function shortSha(sha: string | undefined): string | undefined {
  return sha === undefined ? undefined : `sha256:${sha.slice(0, 12)}`;
}

/** A file whose content comes from a secret shows no digest of it (a short secret could be guessed from one). */
export function shownDigest(file: DesiredFile, sha: string | undefined): string | undefined {
  return file.secret && sha !== undefined ? MASK : shortSha(sha);
}

/** One GET per project at most, shared by its files: the default branch, or whether a 404 means the project. */
export function memoProjects(ctx: InstanceContext): (ref: string) => Promise<ProjectRef> {
  const seen = new Map<string, Promise<ProjectRef>>();
  return (ref) => {
    let p = seen.get(ref);
    if (!p) seen.set(ref, (p = getProjectRef(ctx.client, ref)));
    return p;
  };
}
