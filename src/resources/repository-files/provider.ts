/**
 * Repository files as a resource: one file on one branch of one project. A plan makes one HEAD per
 * declared file and branch and compares the SHA-256 of the local content (hashed streaming) and the
 * execute bit with the `X-Service-*` headers: it never downloads a file (`--show-content` reads text
 * files up to 10 MB, to show a diff). Apply writes one commit per file: POST, PUT or DELETE, the
 * last two carrying the file's last commit seen at plan time, so a commit made since fails the
 * write and is reported as a conflict instead of being overwritten. Writes to one branch run one at
 * a time (a lane per project and branch); everything else runs in parallel.
 */
import { createHash } from 'node:crypto';
import { LIMITS } from '../../catalogue/index.js';
import { ApiAmbiguousError, ApiBadRequestError, ApiError, ApiNotFoundError, describeReason } from '../../api/errors.js';
import { getProjectRef } from '../../api/namespaces.js';
import { Semaphore } from '../../api/semaphore.js';
import type { ProjectRef } from '../../api/namespaces.js';
import { createFile, deleteFile, getFile, getFileMetadata, getRawFile, updateFile } from '../../api/repository-files.js';
import type { RepositoryFileMetadata } from '../../api/repository-files.js';
import type { DesiredFile, FilesProject } from './model.js';
import { filesOf } from './model.js';
import { MASK } from '../../config/secrets.js';
import { canonical } from '../../util/canonical.js';
import { fingerprintSecret, matchesFingerprint, stateFingerprint } from '../../engine/fingerprint.js';
import { PRIVATE_CONTENT_WITHHELD } from '../../engine/plan.js';
import type { AttributeChange, DriftEntry, PlanDiagnostic, Reason, ResourceChange } from '../../engine/plan.js';
import type { ApplyResponse, InstanceContext, PlanResponse, ResourceProvider } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import { distinctProjects } from '../../engine/same-project.js';
import { lockFileCollisions } from './lock-collision.js';
import { commitMessage } from './config.js';
import { contentBytes, contentSha256, contentSize, isText } from './content.js';
import { changedLines, unifiedDiff } from './diff.js';
import { parseFilePayload } from './payload.js';
import type { FileOp, FilePayload } from './payload.js';
import { fileKey, lastWritten, recordWritten } from './state.js';
import type { FileRecord } from './state.js';

/** Blobs above this size are rate limited on GET (HEAD is not): plumb never GETs them. */
const LARGE_BLOB = LIMITS.largeBlobRateLimit.aboveBytes;

/** Local source files hashed at once. */
const LOCAL_READS = 8;

/** The instance's answer to a create or update on a branch that does not exist. */
const NOT_ON_A_BRANCH = /only create or edit files when you are on a branch/i;

interface Target {
  readonly project: FilesProject;
  readonly file: DesiredFile;
  readonly branch: string;
}

/** What a plan read of one file: where from, and its metadata (undefined: absent). */
interface Base {
  /** The branch read: the declared one, or `start_branch` when the declared one lacks the file. */
  readonly readFrom: string;
  /** Set when the file was read from `start_branch` because the declared branch lacks it. */
  readonly startBranch?: string;
  readonly live: RepositoryFileMetadata | undefined;
}

function address(instance: string, t: { project: string; branch: string; path: string }): string {
  return `${instance}.project[${JSON.stringify(t.project)}].branch[${JSON.stringify(t.branch)}].file[${JSON.stringify(t.path)}]`;
}

const lane = (project: string, branch: string) => `${project}:${branch}`;

/** HEAD, with 404 meaning "no such file here". */
async function head(ctx: InstanceContext, project: string, path: string, ref: string): Promise<RepositoryFileMetadata | undefined> {
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
async function readBase(ctx: InstanceContext, project: string, path: string, branch: string, startBranch: string | undefined): Promise<Base> {
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
interface BranchCheck {
  /** A HEAD of a file on `branch` of `project` has started. */
  note(project: string, branch: string, head: Promise<RepositoryFileMetadata | undefined>): void;
  exists(project: string, branch: string, path: string): Promise<boolean>;
  /** Whether an answer about one of its files showed the project exists (no need to ask for it). */
  projectSeen(project: string): boolean;
}

function branchChecker(ctx: InstanceContext): BranchCheck {
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
type PlanBase = (Base & { readonly branchMissing?: boolean }) | { readonly problem: 'branch-missing' | 'start-branch-missing' };

/**
 * The file as a write will find it. On its branch when the branch exists (even without the file:
 * then it is created there, never compared with `start_branch`); when the branch does not exist,
 * on `start_branch`, which the first write creates the branch from.
 */
async function planBase(ctx: InstanceContext, project: string, file: DesiredFile, branch: string, branchExists: BranchCheck): Promise<PlanBase> {
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
function listedBranch(ctx: InstanceContext, project: string): string | undefined {
  return ctx.listedProject?.(project)?.defaultBranch;
}

/** The live state a change was planned against. Without the SHA-256 for secret content: the last commit says when it moved. */
function baseFingerprint(live: RepositoryFileMetadata | undefined, secret: boolean): string {
  if (!live) return stateFingerprint({ absent: true });
  return stateFingerprint({ ...(!secret && { sha256: live.content_sha256 ?? null }), execute: live.execute_filemode ?? null, commit: live.last_commit_id ?? null });
}

/** Whether the file on the instance is what the payload writes (`sha`: of the content written), or for a delete, gone. */
function holds(live: RepositoryFileMetadata | undefined, p: FilePayload, sha: string | undefined): boolean {
  if (p.op === 'delete') return live === undefined;
  return live !== undefined && live.content_sha256 === sha && (p.executeFilemode === undefined || live.execute_filemode === p.executeFilemode);
}

function shortSha(sha: string | undefined): string | undefined {
  return sha === undefined ? undefined : `sha256:${sha.slice(0, 12)}`;
}

/** A file whose content comes from a secret shows no digest of it (a short secret could be guessed from one). */
function shown(file: DesiredFile, sha: string | undefined): string | undefined {
  return file.secret && sha !== undefined ? MASK : shortSha(sha);
}

export const repositoryFilesProvider: ResourceProvider<FilePayload> = {
  kind: 'repository_file',

  declares(instance) {
    return filesOf(instance).some((p) => p.files.length > 0);
  },

  parsePayload: parseFilePayload,

  /** A file payload as a plan shows it: which file on which branch, what is written. */
  describePayload(instance, p) {
    const action = p.op === 'none' ? 'no-op' : p.op;
    const addresses = [address(instance, p)];
    if (p.op === 'none') return { addresses, action, attributes: [] };
    const startBranch = { name: 'start_branch', after: p.startBranch, required: p.startBranch !== undefined };
    if (p.op === 'delete') return { addresses, action, attributes: [startBranch], cosmetic: ['content_sha256'] };
    const secret = p.contentFingerprint !== undefined;
    return {
      addresses,
      action,
      attributes: [
        { name: 'content_sha256', after: secret ? MASK : shortSha(p.sha256), ...(secret && { sensitive: true }), required: p.op === 'create' },
        { name: 'execute_filemode', after: p.op === 'create' ? (p.executeFilemode ?? false) : p.executeFilemode, required: p.op === 'create' },
        startBranch,
      ],
    };
  },

  async plan(ctx): Promise<PlanResponse> {
    const diagnostics: PlanDiagnostic[] = [];
    const projectOf = memoProjects(ctx);
    // One GET per project only when a file of it names no branch (to learn the default branch).
    // A project declared under two names (id and path) is planned under neither.
    const { distinct, diagnostics: duplicates } = await distinctProjects(
      ctx,
      filesOf(ctx.instance).filter((p) => p.files.length > 0 && ctx.targets.within(`${ctx.instance.name}.project[${JSON.stringify(p.ref)}]`)),
      'files',
      (p) => p.pointer,
    );
    diagnostics.push(...duplicates);
    // The lock's file under the lock project's other name (an id for a path): never planned as a file.
    const { colliding, diagnostics: lockFiles } = await lockFileCollisions(ctx, distinct, (p, path) => p.files.find((f) => f.path === path)?.pointer);
    diagnostics.push(...lockFiles);
    const targets = (
      await Promise.all(
        distinct
          .filter((p) => !colliding.has(p))
          .map(async (project): Promise<Target[]> => {
            let defaultBranch: string | undefined;
            // Read only when a target can select a file of this project on its default branch.
            const onDefault = project.files.filter((f) => f.branches.length === 0);
            const projectSeg = `project[${JSON.stringify(project.ref)}]`;
            const listed = listedBranch(ctx, project.ref);
            if (listed !== undefined) defaultBranch = listed;
            else if (onDefault.some((f) => ctx.targets.withinSegments([ctx.instance.name, projectSeg, { startsWith: 'branch[' }, `file[${JSON.stringify(f.path)}]`]))) {
              try {
                defaultBranch = (await projectOf(project.ref)).default_branch;
              } catch (err) {
                diagnostics.push(readFailure(ctx, err, project.pointer, `project "${project.ref}"`));
                return [];
              }
              if (defaultBranch === undefined) {
                diagnostics.push(
                  planDiagnostic(ctx, {
                    severity: 'error',
                    code: 'PLUMB_FILE_BRANCH_MISSING',
                    summary: `Project "${project.ref}" has no default branch (its repository is empty)`,
                    suggestion: 'name the branch under `branches:` for each file of this project',
                    pointer: project.pointer,
                  }),
                );
              }
            }
            return project.files.flatMap((file) =>
              (file.branches.length > 0 ? file.branches : defaultBranch !== undefined ? [defaultBranch] : [])
                .filter((branch) => ctx.targets.targeted(address(ctx.instance.name, { project: project.ref, branch, path: file.path })))
                .map((branch) => ({ project, file, branch })),
            );
          }),
      )
    ).flat();

    // Each declared content is hashed once, however many branches it is declared on.
    // Local sources are read a few at a time (open files and read buffers stay bounded).
    const hashes = new Map<DesiredFile, Promise<string>>();
    const reading = new Semaphore(LOCAL_READS);
    const hashOf = (f: DesiredFile) => {
      let h = hashes.get(f);
      if (!h) {
        h = f.source === undefined ? contentSha256(f) : reading.acquire().then((release) => contentSha256(f).finally(release));
        hashes.set(f, h);
      }
      return h;
    };

    const branchExists = branchChecker(ctx);
    const results = await Promise.all(targets.map((t) => planOne(ctx, t, hashOf, projectOf, branchExists).catch((err: unknown) => ({ diagnostic: readFailure(ctx, err, t.file.pointer, `file "${t.file.path}" on branch "${t.branch}"`) }))));

    const changes: ResourceChange[] = [];
    const drift: DriftEntry[] = [];
    // The first write to a branch that does not exist yet creates it; later ones find it.
    const creating = new Set<string>();
    // Branches that do not exist yet, and whether a planned write creates each.
    const missing = new Map<string, { created: boolean; first: ResourceChange }>();
    for (const r of results) {
      if ('diagnostic' in r) {
        diagnostics.push(r.diagnostic);
        continue;
      }
      if ('skip' in r) continue;
      if (r.branchMissing) {
        const p = r.change.payload as FilePayload;
        const l = lane(p.project, p.branch);
        const m = missing.get(l) ?? { created: false, first: r.change };
        missing.set(l, { ...m, created: m.created || r.change.action !== 'no-op' });
      }
      let change = r.change;
      const p = change.payload as FilePayload;
      if (p.startBranch !== undefined && change.action !== 'no-op') {
        const l = lane(p.project, p.branch);
        if (!creating.has(l)) {
          creating.add(l);
          change = { ...change, payload: { ...p, createsBranch: true } };
        }
      }
      changes.push(change);
      if (r.drift) drift.push(r.drift);
    }
    diagnostics.push(...(await archivedProjects(ctx, distinct, changes, projectOf)));
    for (const { created, first } of missing.values()) {
      if (created) continue;
      const p = first.payload as FilePayload;
      diagnostics.push(
        planDiagnostic(ctx, {
          severity: 'error',
          code: 'PLUMB_FILE_BRANCH_MISSING',
          summary: `Branch "${p.branch}" of project "${p.project}" does not exist, and no declared file can create it: each equals its copy on start_branch "${p.startBranch}"`,
          detail: 'A branch is created by the first write to it; writing a file as it already is on start_branch is an empty commit, which the instance refuses. Without a write, the branch would never exist and the plan would show it in sync for ever.',
          suggestion: `create branch "${p.branch}" on the instance, or declare on it a file that differs from "${p.startBranch}"`,
          address: first.address,
          pointer: first.pointer,
        }),
      );
    }
    return { changes, drift, diagnostics };
  },

  async liveFingerprint(ctx, _change, p) {
    const base = await readBase(ctx, p.project, p.path, p.branch, p.startBranch);
    return baseFingerprint(base.live, p.contentFingerprint !== undefined);
  },

  /**
   * A saved plan whose file differs from the one planned again only in the content to write: the
   * `source:` file (or the secret behind the content) changed since the plan, or the plan's hash
   * was edited. Refused either way; said as the apply of that file has always said it.
   */
  explainDifference(saved, derived) {
    const keys = (o: Readonly<Record<string, unknown>>) => Object.keys(o).filter((k) => k !== 'sha256' && k !== 'contentFingerprint');
    const rest = (c: ResourceChange) => JSON.stringify(canonical({ ...c, payload: Object.fromEntries(keys(c.payload).map((k) => [k, c.payload[k]])), attributes: c.attributes.filter((a) => a.name !== 'content_sha256'), diff: undefined }));
    if (saved.kind !== 'repository_file' || rest(saved) !== rest(derived)) return undefined;
    const path = typeof derived.payload.path === 'string' ? derived.payload.path : derived.address;
    return {
      severity: 'error',
      code: 'PLUMB_FILE_SOURCE_CHANGED',
      summary: `The content of ${path} is not the one the plan was made with`,
      detail: 'Its source file (or the secret it comes from) changed since the plan, or the plan file was edited. Nothing was applied.',
      suggestion: 'run `plumb plan` again and review the new plan',
      address: derived.address,
    };
  },

  async apply(ctx, change, p): Promise<ApplyResponse> {
    if (p.op === 'none') return { applied: true, diagnostics: [], notes: [] };
    const declared = filesOf(ctx.instance).find((pr) => pr.ref === p.project)?.files.find((f) => f.pointer === p.pointer);
    if (!declared) {
      return failed(ctx, change, 'PLUMB_PLAN_UNKNOWN_TARGET', `${change.address} is no longer declared in the configuration`, 'make a new plan');
    }
    const key = fileKey(p.project, p.branch, p.path);
    const author = { ...(p.authorName !== undefined && { author_name: p.authorName }), ...(p.authorEmail !== undefined && { author_email: p.authorEmail }) };
    const startBranch = p.createsBranch && p.startBranch !== undefined ? { start_branch: p.startBranch } : {};
    const common = { branch: p.branch, commit_message: p.commitMessage, ...author };
    let body: { content: string; encoding: 'text' | 'base64'; execute_filemode?: boolean } | undefined;
    let sha: string | undefined;
    if (p.op !== 'delete') {
      const bytes = await contentBytes(declared);
      sha = createHash('sha256').update(bytes).digest('hex');
      const same = p.contentFingerprint ? await matchesFingerprint(sha, p.contentFingerprint) : sha === p.sha256;
      if (!same) {
        return failed(ctx, change, 'PLUMB_FILE_SOURCE_CHANGED', `The content of ${p.path} changed since the plan was made; it was not written`, 'run `plumb plan` again and review the new plan');
      }
      const text = isText(bytes);
      body = { content: bytes.toString(text ? 'utf8' : 'base64'), encoding: text ? 'text' : 'base64', ...(p.executeFilemode !== undefined && { execute_filemode: p.executeFilemode }) };
    }
    const written: FileRecord =
      p.op === 'delete'
        ? { sha256: null }
        : { ...(p.contentFingerprint ? { fingerprint: await fingerprintSecret(sha!) } : { sha256: sha! }), ...(p.executeFilemode !== undefined && { executeFilemode: p.executeFilemode }) };
    const record = () => recordWritten(ctx.state, ctx.instance.url, key, written);
    const write = async (withStart: boolean) => {
      const start = withStart ? startBranch : {};
      if (p.op === 'create') await createFile(ctx.client, p.project, p.path, { ...common, ...start, ...body! });
      else if (p.op === 'update') await updateFile(ctx.client, p.project, p.path, { ...common, ...start, ...body!, last_commit_id: p.lastCommitId! });
      else await deleteFile(ctx.client, p.project, p.path, { ...common, ...start, last_commit_id: p.lastCommitId! });
    };
    try {
      await write(true);
      record();
      return { applied: true, diagnostics: [], notes: [`${p.op === 'delete' ? 'deleted from' : 'committed to'} ${p.branch}`] };
    } catch (err) {
      if (err instanceof ApiError && !(err instanceof ApiBadRequestError)) {
        // Whatever the status (a lost answer, a 500 after the commit, a refusal), the file as it is
        // now says what happened: read it again, never repeat the write.
        const call = err.status !== undefined ? `${err.method} ${err.path} answered ${err.status}` : `the answer was lost (${err.method} ${err.path})`;
        let now: Base;
        try {
          now = await readBase(ctx, p.project, p.path, p.branch, p.startBranch);
        } catch (readErr) {
          const why = ctx.secrets.redact(readErr instanceof Error ? readErr.message : String(readErr));
          return failed(ctx, change, err instanceof ApiAmbiguousError ? err.code : 'PLUMB_FILE_OUTCOME_UNKNOWN', `${p.op} of ${p.path} on ${p.branch}: outcome unknown (${ctx.secrets.redact(err.message)})`, 'run `plumb plan` once the instance answers: it shows the file as it is', `${call}, and reading the file again failed too (${why}); plumb did not repeat the write.`);
        }
        if (holds(now.live, p, sha)) {
          record();
          return { applied: true, diagnostics: [], notes: [`${call}, but reading the file again shows ${p.branch} holds the declared file: the write was carried out`] };
        }
        const refusal = err.status !== undefined && err.status < 500;
        // Checked: the outcome is known now (nothing was written), so the failure is told as such.
        const what = err instanceof ApiAmbiguousError ? `${err.method} ${err.path}: ${describeReason(err.reason, err.status)}` : err.message;
        const unchanged = `${call}; reading the file again shows it unchanged since the plan, so nothing was written (plumb did not repeat the write).`;
        const why = err.status === 403 ? await forbiddenBecause(ctx, p, err) : undefined;
        if (why) return failed(ctx, change, why.code, ctx.secrets.redact(why.summary), why.suggestion, unchanged);
        return failed(
          ctx,
          change,
          err.code,
          ctx.secrets.redact(`${p.op} of ${p.path} on ${p.branch} failed: ${what}`),
          refusal ? "check the project path, the branch and the token's role (Developer at least), then plan again" : 'run `plumb apply` again once the instance answers (the file is unchanged)',
          unchanged,
        );
      }
      if (!(err instanceof ApiBadRequestError)) throw err;
      // A 400 does not say why (an update's message is the same for every cause): read the file again.
      const now = await readBase(ctx, p.project, p.path, p.branch, p.startBranch);
      if (holds(now.live, p, sha)) {
        record();
        return { applied: true, diagnostics: [], notes: [`nothing changed: ${p.branch} already holds the declared file (the instance refused an empty commit; checked again with HEAD)`] };
      }
      const plannedCommit = p.op === 'create' ? undefined : p.lastCommitId;
      if (now.live?.last_commit_id !== plannedCommit) {
        return failed(
          ctx,
          change,
          'PLUMB_FILE_CONFLICT',
          now.live === undefined
            ? `${p.path} on ${p.branch} was deleted by another commit since the plan; plumb did not write it`
            : `${p.path} on ${p.branch} was changed by commit ${now.live.last_commit_id?.slice(0, 12) ?? '(unknown)'} since the plan${plannedCommit ? ` (planned against ${plannedCommit.slice(0, 12)})` : ''}; plumb did not overwrite it`,
          'review that commit, then run `plumb plan` again: the new plan compares with the file as it is now',
        );
      }
      // The branch exists after all (a start_branch write refused because it does): write to it.
      if (p.createsBranch && p.op === 'create' && now.live === undefined && now.startBranch === undefined) {
        try {
          await write(false);
          record();
          return { applied: true, diagnostics: [], notes: [`committed to ${p.branch}`] };
        } catch (again) {
          if (!(again instanceof ApiBadRequestError)) throw again;
        }
      }
      if (NOT_ON_A_BRANCH.test(err.serverMessage ?? '')) {
        return failed(ctx, change, 'PLUMB_FILE_BRANCH_MISSING', `Branch "${p.branch}" of project "${p.project}" does not exist`, 'create the branch, or declare `start_branch:` on the file to create it from another branch');
      }
      if (NOT_ALLOWED_TO_PUSH.test(err.serverMessage ?? '')) {
        const why = protectedBranch(p, err.serverMessage!);
        return failed(ctx, change, why.code, why.summary, why.suggestion, `${err.method} ${err.path} answered 400; reading the file again shows it unchanged since the plan.`);
      }
      return failed(ctx, change, 'PLUMB_FILE_WRITE_FAILED', `The instance refused to ${p.op} ${p.path} on ${p.branch}: ${err.serverMessage ?? 'no message'}`, 'check the branch (protected?), the project and the token\'s role, then plan again', `${err.method} ${err.path} answered 400; reading the file again shows it unchanged since the plan.`);
    }
  },
};

/** The service's words for a push its branch protection refuses (a 403 or, from the commit service, a 400). */
const NOT_ALLOWED_TO_PUSH = /not allowed to push into this branch/i;

type Because = { code: PlanDiagnostic['code']; summary: string; suggestion: string };

function protectedBranch(p: FilePayload, said: string): Because {
  return {
    code: 'PLUMB_FILE_BRANCH_PROTECTED',
    summary: `The instance refused to ${p.op} ${p.path} on ${p.branch} of project "${p.project}": "${said}" (the branch is protected)`,
    suggestion: `allow plumb's token to push to ${p.branch} in the project's protected branches (by default only Maintainers may), or declare the file on another branch, then plan again`,
  };
}

/**
 * What a 403 to a file write means, when the service says or the project shows it: a protected
 * branch (its message), or an archived project (read-only; the answer is a bare "403 Forbidden",
 * so the project is read again to tell). Undefined: a plain refusal of the token's role.
 */
async function forbiddenBecause(ctx: InstanceContext, p: FilePayload, err: ApiError): Promise<Because | undefined> {
  if (NOT_ALLOWED_TO_PUSH.test(err.serverMessage ?? '')) return protectedBranch(p, err.serverMessage!.replace(/^403 Forbidden - /, ''));
  let archived = false;
  try {
    archived = (await getProjectRef(ctx.client, p.project)).archived === true;
  } catch {
    // the role hint stands
  }
  if (!archived) return undefined;
  return {
    code: 'PLUMB_FILE_PROJECT_ARCHIVED',
    summary: `The instance refused to ${p.op} ${p.path} on ${p.branch}: project "${p.project}" is archived, and the service refuses every write to an archived project (it answered ${err.serverMessage ?? '403'})`,
    suggestion: 'unarchive the project if its files should change, or take its files out of the configuration, then plan again',
  };
}

/**
 * A warning per archived project that has file changes planned: the service keeps an archived
 * project read-only, so each of those writes would be refused at apply. Projects a selector listed
 * without `include_archived` were not archived when listed and cost no request; for the others the
 * project is read (once, shared with the plan's other reads of it).
 */
async function archivedProjects(ctx: InstanceContext, projects: readonly FilesProject[], changes: readonly ResourceChange[], projectOf: (ref: string) => Promise<ProjectRef>): Promise<PlanDiagnostic[]> {
  const changing = new Map<string, number>();
  for (const c of changes) if (c.action !== 'no-op') changing.set((c.payload as FilePayload).project, (changing.get((c.payload as FilePayload).project) ?? 0) + 1);
  const found = await Promise.all(
    projects
      .filter((pr) => changing.has(pr.ref))
      .map(async (pr) => {
        const listed = ctx.selectorMatch?.(pr.pointer);
        if (listed?.container === 'projects' && !listed.includeArchived) return undefined;
        const archived = await projectOf(pr.ref).then(
          (r) => r.archived === true,
          () => false, // a project that cannot be read is reported by the reads that need it
        );
        if (!archived) return undefined;
        const n = changing.get(pr.ref)!;
        return planDiagnostic(ctx, {
          severity: 'warning',
          code: 'PLUMB_FILE_PROJECT_ARCHIVED',
          summary: `Project "${pr.ref}" is archived: the service refuses every write to an archived project, so the ${n} file change(s) planned there will fail at apply`,
          detail: 'An archived project is read-only on the service, for administrators too; plumb plans its files as declared but cannot write them.',
          suggestion: 'unarchive the project if its files should change, or take its files out of the configuration (for a selector: `exclude:` it)',
          pointer: pr.pointer,
        });
      }),
  );
  return found.filter((d): d is PlanDiagnostic => d !== undefined);
}

function failed(ctx: InstanceContext, change: ResourceChange, code: PlanDiagnostic['code'], summary: string, suggestion: string, detail?: string): ApplyResponse {
  return {
    applied: false,
    notes: [],
    diagnostics: [planDiagnostic(ctx, { severity: 'error', code, summary, suggestion, ...(detail && { detail }), address: change.address, pointer: change.pointer })],
  };
}

function readFailure(ctx: InstanceContext, err: unknown, pointer: string, what: string): PlanDiagnostic {
  if (err instanceof ApiError) {
    return planDiagnostic(ctx, {
      severity: 'error',
      code: err.code,
      summary: ctx.secrets.redact(`Cannot read ${what}: ${err.message}`),
      detail: `${err.method} ${err.path}${err.status !== undefined ? ` answered ${err.status}` : ' failed'}.`,
      suggestion: err.status === 403 || err.status === 401 ? "the token needs at least read access to the project's code (read_api or read_repository)" : 'check the project path and that the token can see it',
      pointer,
    });
  }
  return planDiagnostic(ctx, { severity: 'error', code: 'PLUMB_FILE_MISSING', summary: ctx.secrets.redact(`Cannot read ${what}: ${err instanceof Error ? err.message : String(err)}`), pointer });
}

type Planned = { change: ResourceChange; drift?: DriftEntry; branchMissing?: boolean } | { diagnostic: PlanDiagnostic } | { skip: true };

/** One GET per project at most, shared by its files: the default branch, or whether a 404 means the project. */
function memoProjects(ctx: InstanceContext): (ref: string) => Promise<ProjectRef> {
  const seen = new Map<string, Promise<ProjectRef>>();
  return (ref) => {
    let p = seen.get(ref);
    if (!p) seen.set(ref, (p = getProjectRef(ctx.client, ref)));
    return p;
  };
}

async function planOne(ctx: InstanceContext, t: Target, hashOf: (f: DesiredFile) => Promise<string>, projectOf: (ref: string) => Promise<ProjectRef>, branchExists: BranchCheck): Promise<Planned> {
  const { project, file, branch } = t;
  const at = address(ctx.instance.name, { project: project.ref, branch, path: file.path });
  const [found, sha] = await Promise.all([
    (async () => {
      const b = await planBase(ctx, project.ref, file, branch, branchExists).catch(async (err: unknown) => {
        // HEAD has no body: a 404 may be the project. Asked once per project, only when a file is missing.
        await projectOf(project.ref);
        throw err;
      });
      if (!('problem' in b) && !b.live && !branchExists.projectSeen(project.ref) && !ctx.listedProject?.(project.ref)) await projectOf(project.ref);
      return b;
    })(),
    file.state === 'present' ? hashOf(file) : Promise.resolve(undefined),
  ]);
  if ('problem' in found) {
    if (file.state === 'absent') return { skip: true }; // no branch, so no file: nothing to delete
    return {
      diagnostic: planDiagnostic(ctx, {
        severity: 'error',
        code: found.problem === 'branch-missing' ? 'PLUMB_FILE_BRANCH_MISSING' : 'PLUMB_FILE_START_BRANCH_MISSING',
        summary:
          found.problem === 'branch-missing'
            ? `Branch "${branch}" of project "${project.ref}" does not exist, and ${file.path} declares no start_branch to create it from`
            : `start_branch "${file.startBranch}" of ${file.path} does not exist in project "${project.ref}" (branch "${branch}" does not exist either)`,
        suggestion:
          found.problem === 'branch-missing'
            ? 'create the branch, or declare `start_branch:` on the file to create it from another branch'
            : `check the name of start_branch (a branch of "${project.ref}" that exists)`,
        address: at,
        pointer: found.problem === 'branch-missing' ? file.pointer : `${file.pointer}/start_branch`,
      }),
    };
  }
  const base = found;
  const live = base.live;
  let op: FileOp = 'none';
  const reasons: Reason[] = [];
  const attributes: AttributeChange[] = [];
  const sensitive = file.secret ? { sensitive: true } : {};
  const show = (sha: string | undefined) => shown(file, sha);
  if (sha === undefined) {
    if (live) {
      op = 'delete';
      reasons.push('absent-requested');
      attributes.push({ name: 'content_sha256', before: show(live.content_sha256), ...sensitive });
    }
  } else if (!live) {
    op = 'create';
    reasons.push('missing-in-live');
    attributes.push({ name: 'content_sha256', after: show(sha), ...sensitive });
    attributes.push({ name: 'execute_filemode', after: file.executeFilemode ?? false });
  } else {
    if (live.content_sha256 !== sha) {
      reasons.push('content-changed');
      attributes.push({ name: 'content_sha256', before: show(live.content_sha256), after: show(sha), ...sensitive });
    }
    if (file.executeFilemode !== undefined && live.execute_filemode !== file.executeFilemode) {
      reasons.push('execute-bit-changed');
      attributes.push({ name: 'execute_filemode', before: live.execute_filemode, after: file.executeFilemode });
    }
    if (reasons.length > 0) op = 'update';
  }
  const action = op === 'none' ? 'no-op' : op;
  const payload: FilePayload = {
    op,
    project: project.ref,
    branch,
    path: file.path,
    pointer: file.pointer,
    commitMessage: commitMessage(file.commitMessages[op === 'none' ? 'update' : op], { path: file.path, branch, project: project.ref, action: op === 'none' ? 'update' : op }),
    ...(sha !== undefined && (file.secret ? { contentFingerprint: await fingerprintSecret(sha) } : { sha256: sha })),
    ...(op !== 'delete' && file.executeFilemode !== undefined && { executeFilemode: file.executeFilemode }),
    ...(live?.last_commit_id !== undefined && { lastCommitId: live.last_commit_id }),
    ...(base.startBranch !== undefined && { startBranch: base.startBranch }),
    ...(file.authorName !== undefined && { authorName: file.authorName }),
    ...(file.authorEmail !== undefined && { authorEmail: file.authorEmail }),
  };
  if (base.startBranch !== undefined && op !== 'none') {
    attributes.push({ name: 'start_branch', before: undefined, after: base.startBranch });
  }
  let diff: string | undefined;
  if (ctx.showContent && (op === 'create' || op === 'update') && reasons.some((r) => r === 'content-changed' || r === 'missing-in-live')) {
    diff = file.secret ? '(content not shown: it comes from a secret)' : await contentDiff(ctx, project.ref, file, base, projectOf);
  }
  const change: ResourceChange = {
    address: at,
    instance: ctx.instance.name,
    kind: 'repository_file',
    action,
    reasons,
    attributes,
    pointer: file.pointer,
    payload,
    liveFingerprint: baseFingerprint(live, file.secret),
    order: { lane: lane(project.ref, branch) },
    ...(diff !== undefined && { diff }),
  };
  return { change, ...(op !== 'none' && { drift: await driftOf(ctx, t, at, base) }), ...(base.branchMissing && { branchMissing: true }) };
}

/** A file plumb wrote that a push changed since: drift (only when it still differs from the configuration). */
async function driftOf(ctx: InstanceContext, t: Target, at: string, base: Base): Promise<DriftEntry | undefined> {
  if (base.startBranch !== undefined) return undefined;
  const rec = lastWritten(ctx.state, ctx.instance.url, fileKey(t.project.ref, t.branch, t.file.path));
  if (!rec) return undefined;
  const live = base.live;
  const liveSha = live?.content_sha256;
  const deleted = 'sha256' in rec && rec.sha256 === null;
  const contentMoved = deleted ? live !== undefined : liveSha === undefined || ('fingerprint' in rec ? !(await matchesFingerprint(liveSha, rec.fingerprint)) : liveSha !== rec.sha256);
  const execMoved = !deleted && rec.executeFilemode !== undefined && live !== undefined && live.execute_filemode !== rec.executeFilemode;
  if (!contentMoved && !execMoved) return undefined;
  const summary = deleted
    ? `file ${t.file.path} on ${t.branch} was re-created by a push after plumb deleted it`
    : live === undefined
      ? `file ${t.file.path} on ${t.branch} was deleted by a push after plumb's last apply`
      : `file ${t.file.path} on ${t.branch} was changed by a push after plumb's last apply (commit ${live.last_commit_id?.slice(0, 12) ?? 'unknown'})`;
  const attributes: AttributeChange[] = [];
  if (contentMoved) {
    const recorded = 'fingerprint' in rec ? MASK : (shortSha(rec.sha256 ?? undefined) ?? null);
    attributes.push({ name: 'content_sha256', before: shown(t.file, liveSha) ?? null, after: recorded, ...(t.file.secret && { sensitive: true }) });
  }
  if (execMoved) attributes.push({ name: 'execute_filemode', before: live!.execute_filemode, after: rec.executeFilemode });
  return { address: at, instance: ctx.instance.name, kind: 'repository_file', summary, attributes };
}

/** Projects whose content any signed-in user of the instance may read anyway. */
const READABLE = new Set(['public', 'internal']);

/**
 * `--show-content`: a bounded unified diff of a text file; never a GET of a blob over 10 MB. The
 * live side of a file of a private project (or one whose visibility cannot be read) is withheld
 * unless `--show-private-content` was given: a CI log reaches people the project does not.
 */
async function contentDiff(ctx: InstanceContext, project: string, file: DesiredFile, base: Base, projectOf: (ref: string) => Promise<ProjectRef>): Promise<string> {
  const live = base.live;
  if (live && (live.size === undefined || live.size > LARGE_BLOB)) return '(content not shown: the file on the instance is larger than 10 MB)';
  if ((await contentSize(file)) > LARGE_BLOB) return '(content not shown: the declared file is larger than 10 MB)';
  const local = await contentBytes(file);
  if (!isText(local)) return '(binary file: content differs, not shown)';
  let before = '';
  let withheld: string | undefined;
  if (live && !ctx.showPrivateContent) {
    const visibility = await projectOf(project).then(
      (p) => p.visibility,
      () => undefined,
    );
    if (!READABLE.has(visibility ?? '')) withheld = visibility === undefined ? 'its visibility could not be read' : `"${project}" is ${visibility}`;
  }
  if (live) {
    const bytes = Buffer.from(await getRawFile(ctx.client, project, file.path, { ref: base.readFrom }));
    if (!isText(bytes)) return '(binary file on the instance: content differs, not shown)';
    before = bytes.toString('utf8');
  }
  const after = local.toString('utf8');
  if (withheld !== undefined) {
    const { removed, added } = changedLines(before, after);
    return `${PRIVATE_CONTENT_WITHHELD}: ${withheld}; ${removed} line(s) removed, ${added} added; plan --show-private-content shows it)`;
  }
  const crlf = (t: string) => (t.includes('\r\n') ? 'CRLF (\\r\\n)' : 'LF (\\n)');
  if (live && before !== after && before.replace(/\r\n/g, '\n') === after.replace(/\r\n/g, '\n')) {
    return `(only line endings differ: the declared file uses ${crlf(after)}, the repository's copy ${crlf(before)}; check .gitattributes or your editor's line-ending setting)`;
  }
  return unifiedDiff(file.path, before, after) || '(no line differs: line endings or a final newline differ)';
}
