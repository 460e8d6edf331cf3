/**
 * Planning repository files: one HEAD per declared file and branch, the local content hashed
 * (streaming, a few files at a time), compared by SHA-256 and execute bit; a branch that does not
 * exist yet is created by the first write to it. `--show-content` reads text files to show a diff.
 */
import { LIMITS } from '../../catalogue/index.js';
import { ApiError } from '../../api/errors.js';
import { Semaphore } from '../../api/semaphore.js';
import type { ProjectRef } from '../../api/namespaces.js';
import { getRawFile } from '../../api/repository-files.js';
import type { DesiredFile, FilesProject } from './model.js';
import { filesOf } from './model.js';
import { MASK } from '../../config/secrets.js';
import { fingerprintSecret, matchesFingerprint } from '../../engine/fingerprint.js';
import { PRIVATE_CONTENT_WITHHELD } from '../../engine/plan.js';
import type { AttributeChange, DriftEntry, PlanDiagnostic, PlanRisk, Reason, ResourceChange } from '../../engine/plan.js';
import { credentialOf, flagRisk } from '../../engine/risks.js';
import { getBranchAccess } from '../../api/branches.js';
import { ADMIN_ROLE, liveProtection, pushVerdict, pushWho, roleFor } from './protection.js';
import type { InstanceContext, PlanResponse } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import { distinctProjects } from '../../engine/same-project.js';
import { lockFileCollisions } from './lock-collision.js';
import { planDeliveries } from './merge-request.js';
import { commitMessage } from './config.js';
import { contentBytes, contentSha256, contentSize, isText } from './content.js';
import { changedLines, unifiedDiff } from './diff.js';
import type { FileOp, FilePayload } from './payload.js';
import { fileKey, lastWritten } from './state.js';
import { fileAddress, baseFingerprint, branchChecker, lane, listedBranch, memoProjects, planBase, shortSha, shownDigest } from './live.js';
import type { Base, BranchCheck } from './live.js';

/** Blobs above this size are rate limited on GET (HEAD is not): plumb never GETs them. */
const LARGE_BLOB = LIMITS.largeBlobRateLimit.aboveBytes;

/** Local source files hashed at once. */
const LOCAL_READS = 8;

interface Target {
  readonly project: FilesProject;
  readonly file: DesiredFile;
  readonly branch: string;
}

export async function planRepositoryFiles(ctx: InstanceContext): Promise<PlanResponse> {
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
              .filter((branch) => ctx.targets.targeted(fileAddress(ctx.instance.name, { project: project.ref, branch, path: file.path })))
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
  // Projects delivered by merge request: their file changes become one merge request each
  // (./merge-request.ts); every other project's changes of one branch go in one commit.
  const delivered = await planDeliveries(ctx, distinct, changes);
  const commits = inCommits(delivered.files);
  changes.splice(0, changes.length, ...commits, ...delivered.mergeRequests);
  drift.push(...delivered.drift);
  diagnostics.push(...delivered.diagnostics);
  diagnostics.push(...(await archivedProjects(ctx, distinct, changes, projectOf)));
  // A merge request writes only its own branch: protection is read for the commits onto the files' branches.
  const pushes = await pushRights(ctx, distinct, commits, projectOf);
  diagnostics.push(...pushes.diagnostics);
  // A commit onto a branch whose declared protection changes is applied after the changes that make it.
  if (pushes.after.size > 0) changes.splice(0, changes.length, ...changes.map((c) => withAfter(c, pushes.after)));
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
  return { changes, drift, diagnostics, risks: pushes.risks };
}

/**
 * Protection is planned: for each project and branch that has changes, whether plumb's token may
 * push the commit there, under the protection the branch will have when the commit arrives (one
 * `GET …/repository/branches/:branch` per project and branch with changes: the service's `can_push`
 * for plumb's user and whether the branch is protected; `GET /user` once per run, only when a
 * protected branch lets plumb push, for the administrator flag). Where the configuration declares
 * the project's protected branches and they move the branch's push rights, the protection after
 * apply replaces the live one (the fact `branchProtectionAfterApply`, answered by the kind that owns
 * them; plumb's role from the project's `permissions`, ./protection.ts `roleFor`), and the commit is
 * applied after the changes that make it. A branch the token may not push to is an error at the
 * project's `delivery` (or the first file), suggesting a merge request; an administrator's push onto a
 * protected branch is the risk `admin-push-protected-branch`. A branch that does not exist yet
 * (created by the commit from start_branch) is not checked: apply tells.
 */
async function pushRights(
  ctx: InstanceContext,
  projects: readonly FilesProject[],
  changes: readonly ResourceChange[],
  projectOf: (ref: string) => Promise<ProjectRef>,
): Promise<{ diagnostics: PlanDiagnostic[]; risks: PlanRisk[]; after: Map<string, readonly string[]> }> {
  const lanes = new Map<string, ResourceChange[]>();
  const after = new Map<string, readonly string[]>();
  // Only what is committed to the branch: a merge request's files go to a branch of plumb's own.
  const committed = new Set(projects.filter((pr) => pr.delivery.kind === 'commit').map((pr) => pr.ref));
  for (const c of changes) {
    if (c.action === 'no-op' || !committed.has((c.payload as FilePayload).project)) continue;
    const p = c.payload as FilePayload;
    const l = lane(p.project, p.branch);
    const list = lanes.get(l);
    if (list) list.push(c);
    else lanes.set(l, [c]);
  }
  const existing = [...lanes.values()].filter((list) => !list.some((c) => (c.payload as FilePayload).startBranch !== undefined));
  // A plan made to be read or compared (`plumb report`, `plumb drift`) is never applied: who may push does not matter there.
  if (existing.length === 0 || ctx.compareOnly) return { diagnostics: [], risks: [], after };
  // Asked only for a protected branch the token may push to: who pushes decides whether it is a risk.
  let admin: Promise<boolean> | undefined;
  const isAdmin = () => (admin ??= credentialOf(ctx).then((c) => c.user?.is_admin === true));
  const found = await Promise.all(
    existing.map(async (list) => {
      const first = list[0]!;
      const p = first.payload as FilePayload;
      const project = projects.find((pr) => pr.ref === p.project)!;
      const at = project.delivery.pointer ?? first.pointer;
      let access;
      let declared;
      try {
        access = await getBranchAccess(ctx.client, p.project, p.branch);
        declared = access && (await ctx.facts.branchProtectionAfterApply?.(ctx, p.project, p.branch));
      } catch (err) {
        return { diagnostic: readFailure(ctx, err, at ?? project.pointer, `branch "${p.branch}" of project "${p.project}"`) };
      }
      if (!access) return {};
      let willHave = liveProtection(access);
      let byAdmin: boolean;
      if (declared) {
        after.set(lane(p.project, p.branch), declared.madeBy);
        byAdmin = await isAdmin();
        willHave = { protected: declared.protected, canPush: declared.allowsPush(byAdmin ? ADMIN_ROLE : await roleFor(p.project, access, projectOf)) };
      } else byAdmin = willHave.protected && willHave.canPush && (await isAdmin());
      const verdict = pushVerdict(willHave, byAdmin);
      const files = `${list.length} file(s) (${list.map((c) => (c.payload as FilePayload).path).join(', ')})`;
      const rules = declared?.rules.map((r) => `"${r.name}"`).join(', ');
      const related = (declared?.rules ?? []).flatMap((r) => {
        const loc = r.pointer === undefined ? undefined : ctx.locate(r.pointer);
        return loc ? [{ message: `protected branch "${r.name}" is declared here`, file: loc.file, line: loc.line, column: loc.column }] : [];
      });
      if (verdict === 'denied') {
        return {
          diagnostic: planDiagnostic(ctx, {
            severity: 'error',
            code: 'PLUMB_FILE_PUSH_DENIED',
            summary: declared
              ? `plumb's token may not push to branch "${p.branch}" of project "${p.project}" once the configuration's protected branches are applied (${declared.protected ? `rule ${rules}: ${pushWho(declared.pushAccessLevel)} may push` : 'unprotected'}), where ${files} would be committed`
              : `plumb's token may not push to ${willHave.protected ? 'protected ' : ''}branch "${p.branch}" of project "${p.project}", where ${files} would be committed`,
            detail: declared
              ? "The configuration declares this project's protected branches, and apply changes the branch's protection before the files arrive; under it, plumb's user may not push there: the service would refuse the commit. A merge request proposes the change for someone allowed to merge it."
              : willHave.protected
                ? 'The branch is protected, and its push rule does not let plumb\'s user through: the service would refuse the commit. A merge request proposes the change for someone allowed to merge it.'
                : "plumb's user may not push to the project (a role below Developer): the service would refuse the commit.",
            suggestion:
              declared || willHave.protected
                ? `deliver the files through a merge request (\`delivery: merge_request\`), or allow plumb's user to push to the branch${declared ? ' (the declared push_access_level)' : ''}`
                : "give plumb's user the Developer role or above in the project, or leave its files out",
            pointer: at,
            ...(related.length > 0 && { related }),
          }),
        };
      }
      if (verdict === 'admin-on-protected') {
        const protectedBy = declared && !liveProtection(access).protected ? ` (protected once the configuration's rule ${rules} is applied)` : '';
        return {
          risk: flagRisk(ctx, {
            id: 'admin-push-protected-branch',
            address: first.address,
            summary: `${files} would be committed straight to protected branch "${p.branch}" of project "${p.project}"${protectedBy} with an administrator's token, skipping the review the protection stands for (\`delivery: merge_request\` proposes them instead)`,
            ...(at !== undefined && { pointer: at }),
          }),
        };
      }
      return {};
    }),
  );
  return {
    diagnostics: found.flatMap((f) => (f.diagnostic ? [f.diagnostic] : [])),
    risks: found.flatMap((f) => (f.risk ? [f.risk] : [])),
    after,
  };
}

/** A change of a lane in `after`, ordered after the changes its lane's protection waits for. */
function withAfter(c: ResourceChange, after: ReadonlyMap<string, readonly string[]>): ResourceChange {
  const p = c.payload as FilePayload;
  const edges = c.action === 'no-op' ? undefined : after.get(lane(p.project, p.branch));
  if (!edges || edges.length === 0) return c;
  return { ...c, order: { ...c.order, after: [...(c.order?.after ?? []), ...edges] } };
}

/**
 * `delivery: commit`: the changes of one project and branch (and author) are applied together, in
 * one commit through the commits API (`order.batch`; apply.ts `applyCommit`). A branch with one
 * changed file keeps its one write through the files API: one commit either way.
 */
function inCommits(changes: readonly ResourceChange[]): ResourceChange[] {
  const keyOf = (c: ResourceChange) => {
    const p = c.payload as FilePayload;
    return JSON.stringify([p.project, p.branch, p.authorName ?? null, p.authorEmail ?? null]);
  };
  const counts = new Map<string, number>();
  for (const c of changes) if (c.action !== 'no-op') counts.set(keyOf(c), (counts.get(keyOf(c)) ?? 0) + 1);
  return changes.map((c) => (c.action !== 'no-op' && (counts.get(keyOf(c)) ?? 0) > 1 ? { ...c, order: { ...c.order, batch: keyOf(c) } } : c));
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

async function planOne(ctx: InstanceContext, t: Target, hashOf: (f: DesiredFile) => Promise<string>, projectOf: (ref: string) => Promise<ProjectRef>, branchExists: BranchCheck): Promise<Planned> {
  const { project, file, branch } = t;
  const at = fileAddress(ctx.instance.name, { project: project.ref, branch, path: file.path });
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
  const show = (sha: string | undefined) => shownDigest(file, sha);
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
    ...(project.delivery.kind === 'commit' && project.delivery.skipCi && { skipCi: true }),
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
    attributes.push({ name: 'content_sha256', before: shownDigest(t.file, liveSha) ?? null, after: recorded, ...(t.file.secret && { sensitive: true }) });
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
