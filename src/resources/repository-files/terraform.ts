/**
 * Repository files as a Terraform resource (`plumb_repository_file`), on plumb's engine through
 * the provider's door (src/resources/terraform.ts): one resource is one path on one or more
 * branches; refresh reads each branch's digest and last commit the way plumb's plan reads them.
 */
import { FILE_SHAPE as SHAPE } from './shape.js';
import path from 'node:path';
import type { Plan, ResourceChange } from '../../engine/plan.js';
import { UNKNOWN, attributeSteps, containsUnknown, hasTfErrors, isUnknown, shapeParts } from '../terraform.js';
import type { ApplyResult, CtyValue, FragmentBuilder, PathStep, PlanResult, TerraformDoor, TerraformPart, TfDiagnostic, TfObject } from '../terraform.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import { parseFilePayload } from './payload.js';
import { getRawFile } from '../../api/repository-files.js';
import type { FilePayload } from './payload.js';


const short = (sha: string) => `sha256:${sha.slice(0, 12)}`;

/** The engine's per-branch changes of the one declared file, with their parsed payloads. */
function fileChanges(plan: Plan | undefined): { change: ResourceChange; payload: FilePayload }[] {
  return (plan?.changes ?? []).filter((c) => c.kind === 'repository_file').map((change) => ({ change, payload: parseFilePayload(change.payload) }));
}

function stringMap(v: CtyValue | undefined): Record<string, string> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !isUnknown(v) ? (Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'string')) as Record<string, string>) : {};
}

/**
 * Optimistic locking across Terraform's plan and apply: the prior state holds the last commit of
 * each branch as refresh saw it; a write whose fresh engine plan finds another commit (someone
 * committed since `terraform plan`) is refused, as plumb refuses a saved plan whose file moved.
 * Terraform's plan and apply are two processes with only the state between them, so the engine's
 * saved-plan fingerprints cannot carry over; the commit ids in state are what survives.
 */
function lockConflicts(prior: TfObject | null, changes: ReturnType<typeof fileChanges>): TfDiagnostic[] {
  const seen = stringMap(prior?.last_commit_id);
  return changes
    .filter(({ change, payload }) => change.action !== 'no-op' && (seen[payload.branch] ?? null) !== (payload.lastCommitId ?? null))
    .map(({ payload }) => ({
      severity: 'error' as const,
      summary: `${payload.path} on ${payload.branch} of ${payload.project} changed since terraform plan`,
      detail: `Terraform's plan saw ${seen[payload.branch] ? `commit ${seen[payload.branch]!.slice(0, 12)}` : 'no file'}; the branch now has ${payload.lastCommitId ? `commit ${payload.lastCommitId.slice(0, 12)}` : 'no file'}. Nothing was written.\nhelp: run terraform plan again to see the change and decide (${'PLUMB_FILE_CONFLICT' satisfies DiagnosticCode})`,
    }));
}

/** A nested block's one element (Terraform gives a list of at most one object), when known. */
function block(v: CtyValue | undefined): TfObject | undefined {
  const x = Array.isArray(v) ? (v as CtyValue[])[0] : v;
  return x !== null && x !== undefined && typeof x === 'object' && !Array.isArray(x) && !isUnknown(x) ? (x as TfObject) : undefined;
}

/**
 * `delivery { merge_request {…} }` under terraform: refused, never ignored. Terraform plans and
 * applies one resource (one file) per call, so the provider never holds a project's files together
 * to put them in one merge request (docs/terraform.md#file-delivery).
 */
function mergeRequestRefused(config: TfObject): TfDiagnostic[] {
  if (!block(block(config.delivery)?.merge_request)) return [];
  return [{
    severity: 'error',
    summary: 'delivery { merge_request } is not supported under terraform',
    detail: `Terraform plans and applies one resource at a time, so the provider never holds a project's files together to put them in one merge request: each plumb_repository_file is written in its own commit. Nothing was planned.\nhelp: use delivery { commit {} } (skip_ci = true for no pipeline) here, or declare the files in YAML, or in this CDKTF app run through plumb plan/apply, which open one merge request per project (${'PLUMB_TF_FILE_MERGE_REQUEST' satisfies DiagnosticCode})`,
    path: [{ attribute: 'delivery' }, { index: 0 }, { attribute: 'merge_request' }],
  }];
}

/** A repository file's plumb document; `absent`: the file is to be deleted (its content is not needed). */
function fileDocument(f: TfObject, absent: boolean): FragmentBuilder {
  return (h) => {
    if (typeof f.project !== 'string' || typeof f.file_path !== 'string') return {};
    let out: Record<string, unknown> = {};
    if (h.known(f.branches)) out.branches = h.literal(f.branches);
    if (absent) {
      // A destroy commits with the configured message and author, as `state: absent` does in YAML.
      out = { ...out, state: 'absent' };
      for (const k of ['commit_message', 'author_name', 'author_email']) if (h.known(f[k])) out[k] = h.literal(f[k]!);
      const messages = h.one(f.commit_messages);
      if (messages) out.commit_messages = h.literal(messages);
    } else {
      for (const k of ['content', 'encoding', 'execute_filemode', 'start_branch', 'commit_message', 'author_name', 'author_email', 'state']) {
        if (h.known(f[k])) out[k] = h.literal(f[k]!);
      }
      // Relative to the working directory, as Terraform's own file functions are; not to the temporary document.
      if (typeof f.source === 'string') out.source = h.literal(path.resolve(h.cwd, f.source));
      const messages = h.one(f.commit_messages);
      if (messages) out.commit_messages = h.literal(messages);
    }
    // Delivered by its own commit, always: Terraform plans and applies one resource (one file) at a
    // time, so a project's files are never all in one plan to be put in one merge request
    // (docs/terraform.md#file-delivery; `merge_request` is refused by validate and plan).
    const commit = block(block(f.delivery)?.commit);
    const delivery = commit && commit.skip_ci === true ? { commit: { skip_ci: true } } : 'commit';
    return { projects: { [f.project]: { delivery, files: { [f.file_path]: out } } } };
  };
}

/**
 * Refresh: the file as the instance holds it on each branch, read as plumb reads it (one HEAD per
 * branch, no download): the engine's plan of deleting it names the live digest and commit. Gone on
 * every branch → null, and Terraform plans a create.
 */
async function liveFile(door: TerraformDoor, current: TfObject): Promise<{ shas: Record<string, string>; commits: Record<string, string>; diagnostics: TfDiagnostic[] }> {
  const { plan, diagnostics } = await door.plan(fileDocument(current, true));
  const shas: Record<string, string> = {};
  const commits: Record<string, string> = {};
  for (const { change, payload } of fileChanges(plan)) {
    if (change.action !== 'delete') continue;
    const before = change.attributes.find((a) => a.name === 'content_sha256')?.before;
    if (typeof before === 'string') shas[payload.branch] = before;
    if (payload.lastCommitId) commits[payload.branch] = payload.lastCommitId;
  }
  return { shas, commits, diagnostics: diagnostics.filter((d) => d.severity === 'error') };
}

export const repositoryFileTerraform: TerraformPart = {
  ...shapeParts(SHAPE),
  mount: 'projects',
  computed: {
    content_sha256: { type: ['map', 'string'], description: 'Per branch: "sha256:" and the first 12 hex digits of the file\'s SHA-256 (the instance\'s after refresh, the declared one after apply); never of a secret.', description_kind: 'plain', computed: true },
    last_commit_id: { type: ['map', 'string'], description: 'Per branch: the last commit that changed the file, as plan saw it. Apply refuses to overwrite a file committed to since (optimistic locking).', description_kind: 'plain', computed: true },
  },

  document: (f) => fileDocument(f, false),

  // What plumb last wrote to the file, per branch: keys `project|branch|path` (state.ts fileKey).
  ownsStateEntry(section, key, _entry, values) {
    if (section !== 'repository_files' || typeof values.project !== 'string' || typeof values.file_path !== 'string') return false;
    return key.length > values.project.length + values.file_path.length + 2 && key.startsWith(`${values.project}|`) && key.endsWith(`|${values.file_path}`);
  },

  pathOf(rest, blocks) {
    // projects/<ref>/files/<path>/…
    if (rest.length <= 2) return [{ attribute: 'project' }];
    // projects/<ref>/delivery/<commit|merge_request>/<attribute>: nested blocks, one element each.
    if (rest[2] === 'delivery') return [{ attribute: 'delivery' }, { index: 0 }, ...rest.slice(3).flatMap((seg, i): PathStep[] => (i === 0 ? [{ attribute: seg }, { index: 0 }] : /^\d+$/.test(seg) ? [{ index: Number(seg) }] : [{ attribute: seg }]))];
    if (rest.length <= 4) return rest.length === 4 ? [{ attribute: 'file_path' }] : undefined;
    return attributeSteps(rest.slice(4), blocks);
  },

  validate: mergeRequestRefused,

  async plan(door, prior, proposed, config): Promise<PlanResult> {
    const planned: Record<string, CtyValue> = { ...proposed };
    const refused = mergeRequestRefused(config);
    if (refused.length > 0) return { planned, requiresReplace: [], diagnostics: refused };
    const requiresReplace: PathStep[][] = [];
    if (prior) for (const k of this.identity) if (prior[k] !== proposed[k]) requiresReplace.push([{ attribute: k }]);
    planned.content_sha256 = UNKNOWN;
    planned.last_commit_id = UNKNOWN;
    if (containsUnknown(config) || requiresReplace.length > 0) return { planned, requiresReplace, diagnostics: [] };
    const { plan, diagnostics } = await door.plan(this.document(config));
    if (!plan) return { planned, requiresReplace, diagnostics };
    const changes = fileChanges(plan);
    const shas: Record<string, string> = {};
    const commits: Record<string, string> = {};
    for (const { payload } of changes) {
      if (payload.sha256) shas[payload.branch] = short(payload.sha256);
      if (payload.lastCommitId) commits[payload.branch] = payload.lastCommitId;
    }
    const writes = changes.filter(({ change }) => change.action !== 'no-op');
    planned.content_sha256 = config.state === 'absent' ? {} : shas;
    // A write makes a new commit; without one, the commits refresh saw stay.
    planned.last_commit_id = writes.length > 0 ? UNKNOWN : commits;
    // Terraform's diff shows the writes (content_sha256, last_commit_id): no warning per write.
    return { planned, requiresReplace, diagnostics };
  },

  async apply(door, prior, planned, config): Promise<ApplyResult> {
    const destroy = planned === null || config === null;
    const declared = destroy ? prior : config;
    if (!declared || typeof declared.project !== 'string' || typeof declared.file_path !== 'string') return { newState: null, diagnostics: [] };
    // Destroy deletes the file on its branches (one commit each), with the commits refresh saw.
    const made = await door.plan(fileDocument(declared, destroy), { fresh: true });
    const { plan, diagnostics } = made;
    if (!plan || hasTfErrors(diagnostics)) return { newState: prior, diagnostics };
    const changes = fileChanges(plan);
    const writes = changes.filter(({ change }) => change.action !== 'no-op');
    const conflicts = lockConflicts(prior, writes);
    if (conflicts.length > 0) return { newState: prior, diagnostics: [...diagnostics, ...conflicts] };
    if (writes.length > 0) {
      const r = await door.apply(made, writes.map((w) => w.change));
      diagnostics.push(...r.diagnostics);
      if (!r.ok) return { newState: prior, diagnostics };
    }
    if (destroy) return { newState: null, diagnostics };
    const state: Record<string, CtyValue> = { ...planned };
    const shas: Record<string, string> = {};
    for (const { payload } of changes) if (payload.sha256) shas[payload.branch] = short(payload.sha256);
    state.content_sha256 = config.state === 'absent' ? {} : shas;
    // The commits the writes made: one HEAD per branch, read back through the engine's plan.
    const after = writes.length > 0 ? await door.plan(this.document(config), { fresh: true }) : { plan };
    const commits: Record<string, string> = {};
    for (const { payload } of fileChanges(after.plan)) if (payload.lastCommitId) commits[payload.branch] = payload.lastCommitId;
    state.last_commit_id = commits;
    return { newState: state, diagnostics };
  },

  async read(door, current): Promise<ApplyResult> {
    if (typeof current.project !== 'string' || typeof current.file_path !== 'string') return { newState: current, diagnostics: [] };
    if (current.state === 'absent') return { newState: current, diagnostics: [] };
    const live = await liveFile(door, current);
    if (hasTfErrors(live.diagnostics)) return { newState: current, diagnostics: live.diagnostics };
    if (Object.keys(live.commits).length === 0) return { newState: null, diagnostics: [] };
    const state: Record<string, CtyValue> = { ...current, content_sha256: live.shas, last_commit_id: live.commits };
    if (typeof current.execute_filemode === 'boolean') {
      // The execute bit as the instance has it, so an out-of-band `chmod -x` is a diff of
      // execute_filemode, not only a warning: the engine's plan of the state names the live bit
      // when it differs (one more HEAD per branch, only for a file that manages the bit).
      const { plan } = await door.plan(fileDocument(current, false));
      for (const { change } of fileChanges(plan)) {
        const bit = change.attributes.find((a) => a.name === 'execute_filemode' && typeof a.before === 'boolean');
        if (bit) state.execute_filemode = bit.before as boolean;
      }
    }
    return { newState: state, diagnostics: [] };
  },

  /** `PROJECT:BRANCH:PATH` (project paths and branch names have no colon; the path may). */
  async importState(door, id): Promise<ApplyResult> {
    const m = /^([^:]+):([^:]+):(.+)$/.exec(id);
    if (!m) return { newState: null, diagnostics: [{ severity: 'error', summary: `Cannot import "${id}"`, detail: 'A repository file is imported as PROJECT:BRANCH:PATH, e.g. platform/infra/instance-config:main:CODEOWNERS.' }] };
    const state: Record<string, CtyValue> = {
      project: m[1]!, file_path: m[3]!, branches: [m[2]!], content: null, source: null, encoding: null, execute_filemode: null, start_branch: null,
      commit_message: null, commit_messages: [], author_name: null, author_email: null, state: null, delivery: [], content_sha256: {}, last_commit_id: {},
    };
    const live = await liveFile(door, state);
    if (hasTfErrors(live.diagnostics)) return { newState: null, diagnostics: live.diagnostics };
    if (Object.keys(live.commits).length === 0) return { newState: null, diagnostics: [{ severity: 'error', summary: `No file ${m[3]!} on branch ${m[2]!} of ${m[1]!}`, detail: 'Check the project path, the branch and the file path (PROJECT:BRANCH:PATH).' }] };
    // On the project's default branch, `branches` stays unset, as a configuration usually leaves it
    // (and as -generate-config-out then writes it): ["main"] in state against an unset attribute
    // was a change on the first plan after every import (issue 21 defect 9).
    const onDefault = await liveFile(door, { ...state, branches: null });
    if (Object.keys(onDefault.commits).length === 1 && onDefault.commits[m[2]!] !== undefined) state.branches = null;
    // The content, as the configuration will hold it (a literal), so `content = "…"` of the same
    // text plans no change after import: one download, at import only. A file that is not UTF-8
    // text is left without (its configuration gives base64 content, or a source).
    const raw = await door.read((ctx) => getRawFile(ctx.client, m[1]!, m[3]!, { ref: m[2]! }));
    if (hasTfErrors(raw.diagnostics)) return { newState: null, diagnostics: raw.diagnostics };
    try {
      if (raw.value) state.content = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw.value);
    } catch {
      // not text
    }
    return { newState: { ...state, content_sha256: live.shas, last_commit_id: live.commits }, diagnostics: [] };
  },
};
