/**
 * Delivery by merge request (docs/config.md#delivering-files): one merge request per project, from
 * its own branch (`plumb/<instance>` unless named), kept up to date across runs the way a
 * dependency bot keeps its merge requests. This file plans it; ./merge-request-apply.ts applies it.
 *
 * The plan compares the declared files with the target branch (one HEAD per file, as for a commit),
 * finds the project's open merge request from the source branch (one listing for the whole fleet
 * when plumb's user is an administrator, one per project otherwise), and reads the head commit of
 * an open merge request's branch (one GET per open merge request). Each project with changes, or an
 * open merge request, gets one change, `….merge_request["plumb/prod"]`:
 * - create: no open merge request; the branch is made from the target branch by the commit itself;
 * - update: the declared files, title or labels moved since plumb wrote the merge request: its
 *   branch is rebuilt from the target branch in one commit, in place (no new merge request);
 * - delete: the target branch already holds the declared files: closed, its branch removed;
 * - no-op: up to date (waiting for review), or someone else pushed to its branch (left untouched,
 *   reported with PLUMB_FILE_MR_FOREIGN_COMMIT).
 *
 * Whose branch it is: plumb's when its head commit was committed by plumb's user (the committer
 * email is the user's email or commit email, as `GET /user` gives them) and carries plumb's
 * `Plumb-Instance:` trailer; anything else is someone else's push. What plumb wrote there is in the
 * head commit's `Plumb-File:` trailers, one digest per delivered file (path, action, content
 * SHA-256, execute bit, the target branch's last commit of it), so the plan knows whether the
 * branch holds the declared files without reading them. Content from a secret has no digest in a commit message (a short secret could be
 * guessed from it): such a file is read on the branch with a HEAD instead.
 */
import { createHash } from 'node:crypto';
import { ApiError, ApiNotFoundError } from '../../api/errors.js';
import { getBranchHead, listOpenMergeRequests } from '../../api/merge-requests.js';
import type { BranchHead, MergeRequest } from '../../api/merge-requests.js';
import { matchesFingerprint, stateFingerprint } from '../../engine/fingerprint.js';
import type { AttributeChange, DriftEntry, MergeRequestStanding, PlanDiagnostic, ResourceChange } from '../../engine/plan.js';
import type { InstanceContext } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import { credentialOf } from '../../engine/risks.js';
import type { MergeRequestDelivery } from './delivery.js';
import type { FilesProject } from './model.js';
import type { FilePayload } from './payload.js';
import { baseFingerprint, head, shortSha } from './live.js';
import { PayloadError, oneOf, optionalBoolean, optionalNumber, optionalString, record, string, stringArray } from '../../engine/payload.js';
import { MASK } from '../../config/secrets.js';

/** The default title of a merge request plumb opens (stable: a title that moved is an update). */
export const DEFAULT_TITLE = 'plumb: files declared in the configuration';

/** The trailers of plumb's commit on a merge request's branch. */
export const INSTANCE_TRAILER = 'Plumb-Instance';
export const FILE_TRAILER = 'Plumb-File';

/** What apply needs to deliver one project's files by merge request: the plan's payload. */
export interface MergeRequestPayload {
  readonly delivery: 'merge_request';
  /** open: commit and open; update: rebuild and/or edit; close: close and remove the branch; none: no-op. */
  readonly op: 'open' | 'update' | 'close' | 'none';
  readonly project: string;
  readonly targetBranch: string;
  readonly sourceBranch: string;
  /** The project's `delivery:` declaration. */
  readonly pointer: string;
  /** The files that differ from the target branch, each as a commit to the target branch would write it. */
  readonly files: readonly FilePayload[];
  /** update: the branch is rebuilt from the target branch (its files moved); otherwise only fields change. */
  readonly rebuild?: boolean;
  /** The open merge request (update, close, none). */
  readonly iid?: number;
  /** The head of the source branch the plan saw (update, close): a push since refuses the write. */
  readonly head?: string;
  readonly title: string;
  readonly description?: string;
  readonly labels: readonly string[];
  readonly autoMerge: boolean;
  readonly removeSourceBranch: boolean;
  readonly squash?: boolean;
}

export function mergeRequestAddress(instance: string, project: string, sourceBranch: string): string {
  return `${instance}.project[${JSON.stringify(project)}].merge_request[${JSON.stringify(sourceBranch)}]`;
}

/**
 * One delivered file as a `Plumb-File:` trailer holds it (null: from a secret, compared by HEAD).
 * With the target branch's last commit of the file: when someone changes the file on the target
 * branch, the merge request is rebuilt on top of that change instead of left to conflict.
 */
export function fileDigest(p: Pick<FilePayload, 'path' | 'op' | 'sha256' | 'contentFingerprint' | 'executeFilemode' | 'lastCommitId'>): string | null {
  if (p.contentFingerprint !== undefined) return null;
  return createHash('sha256')
    .update(JSON.stringify([p.path, p.op, p.sha256 ?? null, p.executeFilemode ?? null, p.lastCommitId ?? null]))
    .digest('hex')
    .slice(0, 24);
}

/** The `Plumb-File:` digests of a commit message. */
export function trailerDigests(message: string): string[] {
  const out: string[] = [];
  for (const m of message.matchAll(new RegExp(`^${FILE_TRAILER}: ([0-9a-f]{24})$`, 'gm'))) out.push(m[1]!);
  return out;
}

/** A project delivered by merge request, with its planned file changes on the target branch (no-ops included). */
export interface MergeRequestProject {
  readonly project: FilesProject;
  readonly delivery: MergeRequestDelivery;
  readonly targetBranch: string;
  readonly changes: readonly ResourceChange[];
}

interface Found {
  readonly mr?: MergeRequest;
  /** An open merge request from the source branch to another target branch. */
  readonly elsewhere?: MergeRequest;
  readonly head?: BranchHead;
}

/**
 * The plan's file changes with those of projects delivered by merge request taken out and replaced
 * by one merge-request change each (planMergeRequests). A project whose files lie on more than one
 * branch cannot be delivered by one merge request: PLUMB_FILE_MR_BRANCHES, its changes left out.
 */
export async function planDeliveries(ctx: InstanceContext, projects: readonly FilesProject[], changes: readonly ResourceChange[]): Promise<{ files: ResourceChange[]; mergeRequests: ResourceChange[]; drift: DriftEntry[]; diagnostics: PlanDiagnostic[] }> {
  const byMr = new Map<string, FilesProject>();
  for (const p of projects) if (p.delivery.kind === 'merge_request') byMr.set(p.ref, p);
  if (byMr.size === 0) return { files: [...changes], mergeRequests: [], drift: [], diagnostics: [] };
  const kept: ResourceChange[] = [];
  const of = new Map<FilesProject, ResourceChange[]>();
  for (const c of changes) {
    const p = c.payload as FilePayload;
    const project = byMr.get(p.project);
    if (!project) {
      kept.push(c);
      continue;
    }
    of.set(project, [...(of.get(project) ?? []), c]);
  }
  const diagnostics: PlanDiagnostic[] = [];
  const mrProjects: MergeRequestProject[] = [];
  for (const [project, list] of of) {
    const delivery = project.delivery as MergeRequestDelivery;
    const branches = [...new Set(list.map((c) => (c.payload as FilePayload).branch))];
    if (branches.length > 1) {
      diagnostics.push(
        planDiagnostic(ctx, {
          severity: 'error',
          code: 'PLUMB_FILE_MR_BRANCHES',
          summary: `Project "${project.ref}" is delivered by merge request, and its files are declared on ${branches.length} branches (${branches.join(', ')})`,
          detail: 'One merge request has one target branch; plumb keeps one merge request per project.',
          suggestion: 'declare the files of this project on one branch (or none: its default branch), or deliver them by commit',
          pointer: delivery.pointer,
        }),
      );
      continue;
    }
    // A file that could not be planned (its diagnostic says why), or that --target left out, would be
    // missing from the merge request: the project's merge request is not planned from part of its files.
    if (list.length < project.files.length) continue;
    mrProjects.push({ project, delivery, targetBranch: branches[0]!, changes: list });
  }
  const planned = await planMergeRequests(ctx, mrProjects);
  return { files: kept, mergeRequests: planned.changes, drift: planned.drift, diagnostics: [...diagnostics, ...planned.diagnostics] };
}

/**
 * One change per project with changes or an open merge request, the drift of files pending in an
 * open merge request, and warnings for merge requests left untouched.
 */
export async function planMergeRequests(ctx: InstanceContext, projects: readonly MergeRequestProject[]): Promise<{ changes: ResourceChange[]; drift: DriftEntry[]; diagnostics: PlanDiagnostic[] }> {
  const changes: ResourceChange[] = [];
  const drift: DriftEntry[] = [];
  const diagnostics: PlanDiagnostic[] = [];
  if (projects.length === 0) return { changes, drift, diagnostics };
  const credential = await credentialOf(ctx);
  const user = credential.user;
  const emails = new Set([user?.email, user?.commit_email].filter((e): e is string => e !== undefined).map((e) => e.toLowerCase()));
  let open: (pr: MergeRequestProject) => Promise<MergeRequest[]>;
  if (user?.is_admin === true) {
    // One listing per source branch name for the whole fleet (the instance-wide list, every page).
    const lists = new Map<string, Promise<MergeRequest[]>>();
    open = (pr) => {
      let l = lists.get(pr.delivery.branch);
      if (!l) lists.set(pr.delivery.branch, (l = listOpenMergeRequests(ctx.client, pr.delivery.branch)));
      return l.then((all) => all.filter((m) => sameProject(m, pr.project.ref)));
    };
  } else {
    open = (pr) => listOpenMergeRequests(ctx.client, pr.delivery.branch, pr.project.ref);
  }
  await Promise.all(
    projects.map(async (pr): Promise<void> => {
      let found: Found;
      try {
        const mrs = await open(pr);
        const mr = mrs.find((m) => m.target_branch === pr.targetBranch);
        const elsewhere = mr ? undefined : mrs[0];
        const headOf = mr ?? elsewhere;
        const branchHead = headOf ? await getBranchHead(ctx.client, pr.project.ref, pr.delivery.branch).catch((err: unknown) => (err instanceof ApiNotFoundError ? undefined : Promise.reject(err))) : undefined;
        found = { ...(mr && { mr }), ...(elsewhere && { elsewhere }), ...(branchHead && { head: branchHead }) };
      } catch (err) {
        diagnostics.push(readFailure(ctx, err, pr));
        return;
      }
      const out = await decide(ctx, pr, found, emails);
      if (out.change) changes.push(out.change);
      drift.push(...out.drift);
      if (out.diagnostic) diagnostics.push(out.diagnostic);
    }),
  );
  return { changes, drift, diagnostics };
}

/** A listed merge request is the project's: by its path (`references.full`, case ignored) or its id. */
function sameProject(m: MergeRequest, ref: string): boolean {
  if (/^\d+$/.test(ref)) return m.project_id === Number(ref);
  return m.project_path !== undefined && m.project_path.toLowerCase() === ref.toLowerCase();
}

function readFailure(ctx: InstanceContext, err: unknown, pr: MergeRequestProject): PlanDiagnostic {
  const what = err instanceof ApiError ? `${err.message}` : err instanceof Error ? err.message : String(err);
  return planDiagnostic(ctx, {
    severity: 'error',
    code: err instanceof ApiError ? err.code : 'PLUMB_FILE_MISSING',
    summary: ctx.secrets.redact(`Cannot read the merge requests of project "${pr.project.ref}" from branch "${pr.delivery.branch}": ${what}`),
    suggestion: 'the token needs to read the project\'s merge requests and branches (read_api); check the project path',
    pointer: pr.delivery.pointer,
  });
}

/** Whether the head commit of the source branch is plumb's own (see the file's comment). */
export function isPlumbCommit(head: BranchHead, instance: string, emails: ReadonlySet<string>): boolean {
  const committer = head.commit.committer_email?.toLowerCase();
  const trailer = new RegExp(`^${INSTANCE_TRAILER}: ${instance.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm').test(head.commit.message);
  return trailer && committer !== undefined && emails.has(committer);
}

async function decide(ctx: InstanceContext, pr: MergeRequestProject, found: Found, emails: ReadonlySet<string>): Promise<{ change?: ResourceChange; drift: DriftEntry[]; diagnostic?: PlanDiagnostic }> {
  const inst = ctx.instance.name;
  const d = pr.delivery;
  const pending = pr.changes.filter((c) => c.action !== 'no-op');
  const files = pending.map((c) => c.payload as FilePayload);
  const address = mergeRequestAddress(inst, pr.project.ref, d.branch);
  const title = d.title ?? DEFAULT_TITLE;
  const common = {
    delivery: 'merge_request' as const,
    project: pr.project.ref,
    targetBranch: pr.targetBranch,
    sourceBranch: d.branch,
    pointer: d.pointer,
    title,
    ...(d.description !== undefined && { description: d.description }),
    labels: [...d.labels],
    autoMerge: d.autoMerge,
    removeSourceBranch: d.removeSourceBranch ?? true,
    ...(d.squash !== undefined && { squash: d.squash }),
  };
  const mr = found.mr ?? found.elsewhere;
  const mine = found.head !== undefined && isPlumbCommit(found.head, inst, emails);
  const standing = (state: MergeRequestStanding['state'], changed?: number): MergeRequestStanding => ({
    state,
    sourceBranch: d.branch,
    targetBranch: pr.targetBranch,
    ...(mr && { iid: mr.iid, url: mr.web_url }),
    files: files.length,
    ...(changed !== undefined && { changed }),
  });
  const fileAttributes: AttributeChange[] = pending.map((c) => {
    const p = c.payload as FilePayload;
    const secret = p.contentFingerprint !== undefined;
    const sha = c.attributes.find((a) => a.name === 'content_sha256');
    return {
      name: `file ${p.path}`,
      ...(sha && 'before' in sha && { before: sha.before }),
      after: p.op === 'delete' ? '(deleted)' : secret ? MASK : (shortSha(p.sha256) ?? p.op),
      ...(secret && { sensitive: true }),
    };
  });
  const base = {
    address,
    instance: inst,
    kind: 'repository_file',
    pointer: d.pointer,
    order: { lane: `${pr.project.ref}:${d.branch}` },
  };
  // What mergeRequestFingerprint reads again: the delivered files on the target branch, the merge request, its branch.
  const live = liveOf(pending.map((c) => c.liveFingerprint), found.mr, found.head);
  const pendingDrift = (m: MergeRequest): DriftEntry[] =>
    files.map((p) => ({
      address: pr.changes.find((c) => (c.payload as FilePayload).path === p.path)!.address,
      instance: inst,
      kind: 'repository_file',
      summary: `file ${p.path} on ${pr.targetBranch} is pending in merge request !${m.iid} (${m.web_url})`,
      attributes: [],
      mergeRequest: { iid: m.iid, url: m.web_url },
    }));

  if (mr && !mine) {
    // Someone else pushed to the branch (or it is gone, or the merge request targets another branch): left untouched.
    const who = found.head ? `${found.head.commit.committer_name ?? found.head.commit.author_name ?? 'someone'}${found.head.commit.committer_email ? ` <${found.head.commit.committer_email}>` : ''}` : undefined;
    const why = found.elsewhere
      ? `targets branch "${found.elsewhere.target_branch}", not "${pr.targetBranch}"`
      : found.head
        ? `its branch "${d.branch}" has commit ${found.head.commit.id.slice(0, 12)} by ${who}, not plumb's`
        : `its branch "${d.branch}" no longer exists`;
    const diagnostic = planDiagnostic(ctx, {
      severity: 'warning',
      code: 'PLUMB_FILE_MR_FOREIGN_COMMIT',
      summary: ctx.secrets.redact(`Merge request !${mr.iid} of project "${pr.project.ref}" (${mr.web_url}) ${why}: plumb leaves it untouched`),
      detail: 'plumb rebuilds, updates or closes only a merge request whose branch holds its own commit, so nobody\'s work on that branch is overwritten.',
      suggestion: `merge or close merge request !${mr.iid} (or delete branch "${d.branch}"); the next apply then opens a new one if the project still differs`,
      address,
      pointer: d.pointer,
    });
    const change: ResourceChange = { ...base, action: 'no-op', reasons: ['merge-request-foreign'], attributes: fileAttributes, payload: { ...common, op: 'none', files, iid: mr.iid }, liveFingerprint: live, mergeRequest: standing('foreign') };
    return { change, drift: found.mr ? pendingDrift(found.mr) : [], diagnostic };
  }

  if (files.length === 0) {
    if (!found.mr) return { drift: [] };
    // The target branch already holds the declared files: the merge request has nothing left to deliver.
    const change: ResourceChange = {
      ...base,
      action: 'delete',
      reasons: ['target-holds-files'],
      attributes: [{ name: 'merge_request', before: `!${found.mr.iid}`, after: '(closed, branch removed)' }],
      payload: { ...common, op: 'close', files: [], iid: found.mr.iid, head: found.head!.commit.id },
      liveFingerprint: live,
      mergeRequest: standing('close'),
    };
    return { change, drift: [] };
  }

  if (!found.mr) {
    const change: ResourceChange = {
      ...base,
      action: 'create',
      reasons: ['files-differ-from-target'],
      attributes: [...fileAttributes, { name: 'target_branch', after: pr.targetBranch }, { name: 'title', after: title }, ...(d.labels.length > 0 ? [{ name: 'labels', after: [...d.labels] }] : [])],
      payload: { ...common, op: 'open', files },
      liveFingerprint: live,
      mergeRequest: standing('new'),
    };
    return { change, drift: [] };
  }

  // Plumb's open merge request: does its branch hold what the plan would write?
  const m = found.mr;
  const wrote = trailerDigests(found.head!.commit.message);
  const want = files.map(fileDigest);
  // A file from a secret has no digest in the commit: its copy on the branch is read (one HEAD) and
  // its SHA-256 checked against the plan's salted fingerprint of the declared content.
  const secretsHeld = await Promise.all(
    files.map(async (p, i) => {
      if (want[i] !== null) return true;
      const onBranch = await head(ctx, pr.project.ref, p.path, d.branch).catch(() => undefined);
      if (p.op === 'delete') return onBranch === undefined;
      const sha = onBranch?.content_sha256;
      return sha !== undefined && p.contentFingerprint !== undefined && (await matchesFingerprint(sha, p.contentFingerprint));
    }),
  );
  const digests = want.filter((x): x is string => x !== null);
  const kept = new Set(wrote);
  const added = digests.filter((x) => !kept.has(x)).length + secretsHeld.filter((ok) => !ok).length;
  const removed = wrote.filter((x) => !digests.includes(x)).length;
  const changed = Math.max(added, removed);
  const fieldsMoved = m.title !== title || d.labels.some((l) => !m.labels.includes(l));
  if (changed === 0 && !fieldsMoved) {
    const change: ResourceChange = { ...base, action: 'no-op', reasons: ['merge-request-up-to-date'], attributes: fileAttributes, payload: { ...common, op: 'none', files, iid: m.iid }, liveFingerprint: live, mergeRequest: standing('up-to-date') };
    return { change, drift: pendingDrift(m) };
  }
  const attributes: AttributeChange[] = [...fileAttributes];
  if (m.title !== title) attributes.push({ name: 'title', before: m.title, after: title });
  if (d.labels.some((l) => !m.labels.includes(l))) attributes.push({ name: 'labels', before: [...m.labels], after: [...new Set([...m.labels, ...d.labels])] });
  const change: ResourceChange = {
    ...base,
    action: 'update',
    reasons: changed > 0 ? ['merge-request-outdated'] : ['merge-request-fields-changed'],
    attributes,
    payload: { ...common, op: 'update', files, iid: m.iid, head: found.head!.commit.id, rebuild: changed > 0 },
    liveFingerprint: live,
    mergeRequest: standing('update', changed > 0 ? changed : undefined),
  };
  return { change, drift: [] };
}

const MR_OPS: readonly MergeRequestPayload['op'][] = ['open', 'update', 'close', 'none'];

/** A merge-request payload (`delivery: "merge_request"`), every file through the file payload's own parser. */
export function parseMergeRequestPayload(raw: unknown, parseFile: (raw: unknown) => FilePayload): MergeRequestPayload {
  const p = record(raw, 'the payload');
  const op = oneOf(p, 'op', MR_OPS, 'payload.op');
  for (const key of ['project', 'targetBranch', 'sourceBranch', 'pointer', 'title']) {
    if (string(p, key, `payload.${key}`) === '') throw new PayloadError(`payload.${key} is empty`);
  }
  if (!Array.isArray(p.files)) throw new PayloadError('payload.files is not a list');
  const files = p.files.map((f, i) => {
    try {
      return parseFile(f);
    } catch (err) {
      throw new PayloadError(`payload.files[${i}]: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  if (files.some((f) => f.op === 'none' || f.project !== p.project)) throw new PayloadError('payload.files holds a file that is not a change of this project');
  if ((op === 'open' || op === 'update') && files.length === 0) throw new PayloadError(`payload.files is empty for a merge request to ${op}`);
  const iid = optionalNumber(p, 'iid', 'payload.iid');
  if ((op === 'update' || op === 'close') && iid === undefined) throw new PayloadError(`payload.iid is missing for a merge request to ${op}`);
  const head = optionalString(p, 'head', 'payload.head');
  const description = optionalString(p, 'description', 'payload.description');
  const rebuild = optionalBoolean(p, 'rebuild', 'payload.rebuild');
  const squash = optionalBoolean(p, 'squash', 'payload.squash');
  const autoMerge = optionalBoolean(p, 'autoMerge', 'payload.autoMerge');
  const remove = optionalBoolean(p, 'removeSourceBranch', 'payload.removeSourceBranch');
  return {
    delivery: 'merge_request',
    op,
    project: p.project as string,
    targetBranch: p.targetBranch as string,
    sourceBranch: p.sourceBranch as string,
    pointer: p.pointer as string,
    files,
    title: p.title as string,
    labels: stringArray(p, 'labels', 'payload.labels'),
    autoMerge: autoMerge ?? false,
    removeSourceBranch: remove ?? true,
    ...(iid !== undefined && { iid }),
    ...(head !== undefined && { head }),
    ...(description !== undefined && { description }),
    ...(rebuild !== undefined && { rebuild }),
    ...(squash !== undefined && { squash }),
  };
}

/**
 * The live state a merge-request change was planned against, read again (a saved plan's check):
 * the target branch's files, the open merge request and the head of its branch.
 */
export async function mergeRequestFingerprint(ctx: InstanceContext, p: MergeRequestPayload): Promise<string> {
  const target = await Promise.all(p.files.map(async (f) => baseFingerprint(await head(ctx, p.project, f.path, p.targetBranch), f.contentFingerprint !== undefined)));
  const mr = (await listOpenMergeRequests(ctx.client, p.sourceBranch, p.project)).find((m) => m.target_branch === p.targetBranch);
  const branch = mr ? await getBranchHead(ctx.client, p.project, p.sourceBranch).catch(() => undefined) : undefined;
  return liveOf(target, mr, branch);
}

function liveOf(target: readonly string[], mr: MergeRequest | undefined, branch: BranchHead | undefined): string {
  return stateFingerprint({ target, mr: mr ? { iid: mr.iid, title: mr.title, labels: mr.labels } : null, head: branch?.commit.id ?? null });
}
