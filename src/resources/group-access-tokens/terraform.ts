/**
 * Group access tokens as a Terraform resource (`plumb_group_access_token`), on plumb's engine
 * through the provider's door (src/resources/terraform.ts). Rotation shows as an update of
 * token_id/token_expires_at; destroy revokes the one token (the group pruned with nothing declared).
 */
import { TOKEN_SHAPE as SHAPE } from './shape.js';
import path from 'node:path';
import { ACCESS_LEVELS } from '../../catalogue/index.js';
import { listGroupAccessTokens } from '../../api/group-access-tokens.js';
import type { GroupAccessToken } from '../../api/group-access-tokens.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import { UNKNOWN, attributeSteps, containsUnknown, hasTfErrors, shapeParts } from '../terraform.js';
import type { ApplyResult, CtyType, CtyValue, DocumentHelpers, FragmentBuilder, PathStep, PlanResult, TerraformDoor, TerraformPart, TfJsonAttribute, TfObject } from '../terraform.js';
import { tokenAddress, tokenListKey } from './provider.js';
import { TokenState, tokenSlotKey } from './state.js';
import { identify, isActive } from './identity.js';


const computed = (description: string, type: CtyType = 'string'): TfJsonAttribute => ({ type, description, description_kind: 'plain', computed: true });

const address = (door: TerraformDoor, group: string, name: string) => tokenAddress({ name: door.instance }, group, name);

function accessLevel(v: string): string | number {
  return /^\d+$/.test(v.trim()) ? Number(v) : v;
}

/** The numeric level a spelling names (`"maintainer"` and `"40"` both 40); undefined when it names none. */
function levelOf(v: CtyValue | undefined): number | undefined {
  if (typeof v !== 'string') return undefined;
  const a = accessLevel(v);
  if (typeof a === 'number') return a;
  const hit = Object.entries(ACCESS_LEVELS).find(([, role]) => role === a.trim().toLowerCase());
  return hit ? Number(hit[0]) : undefined;
}

function tokenDocument(t: TfObject, h: DocumentHelpers): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (h.known(t.description)) out.description = h.literal(t.description);
  if (h.known(t.scopes)) out.scopes = h.literal(t.scopes);
  if (typeof t.access_level === 'string') out.access_level = accessLevel(t.access_level);
  if (h.known(t.expires_at)) out.expires_at = h.literal(t.expires_at);
  const rotation = h.one(t.rotation);
  if (rotation) out.rotation = h.literal(rotation);
  if (h.known(t.self)) out.self = t.self;
  if (typeof t.id === 'number') out.id = t.id;
  const s = h.one(t.sink);
  if (s) out.sink = sinkDocument(s, h);
  if (Array.isArray(t.sinks) && t.sinks.length > 0) {
    out.sinks = (t.sinks as CtyValue[]).flatMap((x) => (x && typeof x === 'object' && !Array.isArray(x) ? [sinkDocument(x as TfObject, h)] : []));
  }
  return out;
}

/** One `sink` block (or one of `sinks`) as plumb's configuration writes it. */
function sinkDocument(s: TfObject, h: DocumentHelpers): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  if (typeof s.file === 'string') doc.file = h.literal(path.resolve(h.cwd, s.file));
  if (Array.isArray(s.command)) {
    const argv = (s.command as CtyValue[]).filter((a): a is string => typeof a === 'string');
    // A relative program path means the working directory, not the temporary document's.
    doc.command = h.literal(argv.map((a, i) => (i === 0 && a.includes('/') ? path.resolve(h.cwd, a) : a)));
  }
  if (s.stdout === true) doc.stdout = true;
  const v = h.one(s.ci_variable);
  if (v) {
    const variable: Record<string, unknown> = {};
    for (const [k, value] of Object.entries(v)) if (value !== null && value !== undefined && h.known(value)) variable[k] = typeof value === 'string' ? h.literal(value) : value;
    doc.ci_variable = variable;
  }
  return doc;
}

/**
 * An import id: `GROUP:NAME[;sink_file=PATH | ;sink_command=JSON]`. Group paths have no colon, so
 * the group ends at the first one (a name may hold colons); the sink starts at the first
 * `;sink_file=` or `;sink_command=` after it.
 */
export function parseImportId(id: string): { group: string; name: string; sink?: TfObject } | { error: string } {
  const usage = 'A group access token is imported as GROUP:NAME, e.g. platform/infra:ci-deployer, optionally with its sink: platform/infra:ci-deployer;sink_file=secrets/ci.token or ;sink_command=["scripts/store-token","ci"].';
  const colon = id.indexOf(':');
  if (colon <= 0) return { error: usage };
  const group = id.slice(0, colon);
  const rest = id.slice(colon + 1);
  const m = /;sink_(file|command)=/.exec(rest);
  const name = m ? rest.slice(0, m.index) : rest;
  if (name === '') return { error: usage };
  if (!m) return { group, name };
  const value = rest.slice(m.index + m[0].length);
  if (m[1] === 'file') return value === '' ? { error: `The sink_file of "${id}" is empty. ${usage}` } : { group, name, sink: { file: value, command: null } };
  let argv: unknown;
  try {
    argv = JSON.parse(value);
  } catch {
    argv = undefined;
  }
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string' && a !== '')) return { error: `The sink_command of "${id}" is not a JSON list of strings (the program and its arguments). ${usage}` };
  return { group, name, sink: { file: null, command: argv as string[] } };
}

/** The group pruned with nothing declared: its plan revokes every undeclared token (destroy). */
const pruned = (group: string): FragmentBuilder => () => ({ groups: { [group]: { prune_access_tokens: true, access_tokens: {} } } });

/**
 * The active token of that group and name, from the walk's list of the group (one list per group
 * per walk: the provider's own writes are recorded in it by the engine's apply). Any one of them:
 * for the adoption check, which refuses whichever exists.
 */
async function liveToken(door: TerraformDoor, group: string, name: string): Promise<{ token?: GroupAccessToken; diagnostics: PlanResult['diagnostics'] }> {
  const r = await door.read((ctx) => door.reads.get(tokenListKey(group), () => listGroupAccessTokens(ctx.client, group)));
  return { token: r.value?.find((t) => t.name === name && t.active && !t.revoked), diagnostics: r.diagnostics };
}

/**
 * Which live token a resource is, as the engine's plan identifies a declared token (identity.ts
 * `identify`): the active token its `id` pins, else the group's one active token of that name,
 * leaving out those this resource's private state says plumb revokes next (a replaced token whose
 * revocation did not finish, a second token issued by a replacement whose answer was lost). Two
 * or more left is ambiguous: an error, as `plumb plan` reports it, rather than the first one's id
 * (which may be the other token's).
 */
async function identifiedToken(door: TerraformDoor, group: string, name: string, pin: CtyValue | undefined): Promise<{ token?: GroupAccessToken; diagnostics: PlanResult['diagnostics'] }> {
  const r = await door.read(async (ctx) => {
    const list = await door.reads.get(tokenListKey(group), () => listGroupAccessTokens(ctx.client, group));
    const state = new TokenState(ctx.state);
    const slot = state.tokenSlot(ctx.instance.url, group, name);
    const held = slot?.held ?? slot?.unknown?.tokenId;
    const exclude = new Set(state.tokenNotes(ctx.instance.url).filter((n) => n.group === group && n.name === name && n.kind === 'revoke-pending' && n.id !== held).map((n) => n.id));
    if (slot?.unknown?.op === 'replace' && list.some((t) => t.id === held && isActive(t))) {
      for (const t of list) if (t.name === name && isActive(t) && t.id !== held) exclude.add(t.id);
    }
    return identify({ name, ...(typeof pin === 'number' && { id: pin }) }, list, exclude);
  });
  const id = r.value;
  if (!id) return { diagnostics: r.diagnostics };
  if (id.kind === 'found') return { token: id.live, diagnostics: [] };
  if (id.kind === 'ambiguous') {
    const ids = id.candidates.map((c) => c.id);
    return {
      diagnostics: [{
        severity: 'error',
        summary: `Token "${name}" of group "${group}" matches ${ids.length} active tokens (ids ${ids.join(', ')})`,
        detail: `A group access token resource is the group's active token with that name; plumb will not guess which one you mean.\nhelp: pin one with \`id = ${ids[0]!}\` in the resource, or revoke the extra ones (${'PLUMB_TOKEN_NAME_AMBIGUOUS' satisfies DiagnosticCode})`,
        path: [{ attribute: 'name' }],
      }],
    };
  }
  if (id.kind === 'id-mismatch') {
    return {
      diagnostics: [{
        severity: 'error',
        summary: `The resource pins id ${String(pin)}, but that token is named "${id.live.name}"`,
        detail: `help: pin the id of an active token named "${name}", or remove id (${'PLUMB_TOKEN_ID_MISMATCH' satisfies DiagnosticCode})`,
        path: [{ attribute: 'id' }],
      }],
    };
  }
  return { diagnostics: [] };
}

/**
 * A create (or the create half of a replacement) finding a token of that group and name on the
 * instance: plumb would treat it as the declared token, so the resource would own a token nobody
 * created through it (no request, no sink written) and two resources could own one token. Refused,
 * unless it is the token this resource's state records (`token_id`).
 */
function adoptionRefused(live: GroupAccessToken, group: string, name: string, typeName: string): PlanResult['diagnostics'][number] {
  return {
    severity: 'error',
    summary: `The group access token "${name}" of ${group} already exists; import it with \`terraform import <address> ${group}:${name}\``,
    detail: `plumb does not take over a token that this resource did not create (it has id ${live.id}). Import it into this resource, e.g. terraform import ${typeName}.NAME '${group}:${name};sink_file=PATH' (the sink the configuration gives, so the plan after the import is empty), or give the resource another name.\n(${'PLUMB_TF_ALREADY_EXISTS' satisfies DiagnosticCode})`,
    path: [{ attribute: 'name' }],
  };
}

/** Whether the state records this live token: the resource created or imported it. */
const recorded = (prior: TfObject | null, live: GroupAccessToken): boolean =>
  prior !== null && typeof prior.token_id === 'number' && prior.token_id === live.id;

function sameSet(a: CtyValue | undefined, b: readonly string[]): boolean {
  if (!Array.isArray(a)) return false;
  const x = new Set(a as CtyValue[]);
  const y = new Set(b);
  return x.size === y.size && [...y].every((v) => x.has(v));
}

export const groupAccessTokenTerraform: TerraformPart = {
  ...shapeParts(SHAPE),
  mount: 'groups',
  computed: {
    token_id: computed('Id of the active token (changes when plumb rotates or replaces it).', 'number'),
    token_expires_at: computed('Expiry of the active token.'),
  },

  document: (t) => (h) => {
    if (typeof t.group !== 'string') return {};
    const tokens = typeof t.name === 'string' ? { [t.name]: tokenDocument(t, h) } : {};
    return { groups: { [t.group]: { access_tokens: tokens } } };
  },

  // The token's slot (what its sink holds) and the notes about live tokens of its name.
  ownsStateEntry(section, key, entry, values) {
    if (typeof values.group !== 'string' || typeof values.name !== 'string') return false;
    if (section === 'token_slots') return key === tokenSlotKey(values.group, values.name);
    if (section !== 'tokens' || typeof entry !== 'object' || entry === null) return false;
    const note = entry as { group?: unknown; name?: unknown };
    return note.group === values.group && note.name === values.name;
  },

  pathOf(rest, blocks) {
    // groups/<ref>/access_tokens/<name>/…
    if (rest.length <= 2) return [{ attribute: 'group' }];
    if (rest.length <= 4) return rest[2] === 'access_tokens' && rest.length === 4 ? undefined : [{ attribute: 'group' }];
    return attributeSteps(rest.slice(4), blocks);
  },

  // A stdout sink's secret would go to Terraform's log: not served, so Terraform refuses it as an
  // unsupported argument (and `validate` below refuses it from a caller that sends it anyway).
  // rotation.overlap is not served either: Terraform applies this resource's change only, and the
  // predecessor's revocation after the overlap is a change of its own (docs/tokens.md#overlap-window).
  hidden: { sink: ['stdout'], sinks: ['stdout'], rotation: ['overlap'] },

  validate(config) {
    const out: PlanResult['diagnostics'] = [];
    for (const block of ['sink', 'sinks'] as const) {
      const list = Array.isArray(config[block]) ? (config[block] as CtyValue[]) : [];
      list.forEach((sink, index) => {
        if (!sink || typeof sink !== 'object' || Array.isArray(sink) || (sink as TfObject).stdout !== true) return;
        out.push({
          severity: 'error',
          summary: 'A token sink cannot be stdout under Terraform',
          detail: `The provider's standard output goes to Terraform's log, so the secret would be lost, or written to a debug log.\nhelp: use sink = { file = "..." }, sink = { command = [...] } or sink { ci_variable { ... } } (${'PLUMB_TF_SINK_STDOUT' satisfies DiagnosticCode})`,
          path: [{ attribute: block }, { index }, { attribute: 'stdout' }],
        });
      });
    }
    return out;
  },

  async plan(door, prior, proposed, config): Promise<PlanResult> {
    const planned: Record<string, CtyValue> = { ...proposed };
    // The same level spelled otherwise ("maintainer" imported, 40 configured) is no change: the
    // prior spelling is kept, as Terraform allows for a value equivalent to the configuration's.
    const level = levelOf(config.access_level);
    if (prior && level !== undefined && levelOf(prior.access_level) === level) planned.access_level = prior.access_level ?? null;
    const requiresReplace: PathStep[][] = [];
    if (prior) for (const k of this.identity) if (prior[k] !== proposed[k]) requiresReplace.push([{ attribute: k }]);
    // A create, or the create half of a replacement: refused when the token exists already.
    if ((prior === null || requiresReplace.length > 0) && typeof config.group === 'string' && typeof config.name === 'string') {
      const { token: live, diagnostics: readDiags } = await liveToken(door, config.group, config.name);
      if (hasTfErrors(readDiags)) return { planned: proposed, requiresReplace, diagnostics: readDiags };
      if (live && !(requiresReplace.length === 0 && recorded(prior, live))) return { planned: proposed, requiresReplace, diagnostics: [adoptionRefused(live, config.group, config.name, this.typeName)] };
    }
    // A value known only at apply (a description, scopes, an expiry) may make plumb replace or rotate the token.
    const keep = prior && requiresReplace.length === 0 && !containsUnknown(config);
    planned.token_id = keep ? prior.token_id ?? UNKNOWN : UNKNOWN;
    planned.token_expires_at = keep ? prior.token_expires_at ?? UNKNOWN : UNKNOWN;
    if (containsUnknown(config) || requiresReplace.length > 0) return { planned, requiresReplace, diagnostics: [] };
    const { plan, diagnostics } = await door.plan(this.document(config));
    const at = address(door, config.group as string, config.name as string);
    const change = plan?.changes.find((c) => c.address === at && c.action !== 'no-op');
    if (change) {
      planned.token_id = UNKNOWN;
      planned.token_expires_at = UNKNOWN;
      if (change.action === 'rotate' || change.action === 'replace') {
        diagnostics.push({
          severity: 'warning',
          summary: `plumb will ${change.action} the token "${config.name as string}" of ${config.group as string} (${change.reasons.join(', ')})`,
          detail: `The new secret goes to the token's sink before the old token stops working; Terraform shows this as an update of token_id and token_expires_at.`,
        });
      }
    }
    diagnostics.push(...door.riskDiagnostics(plan, at));
    return { planned, requiresReplace, diagnostics };
  },

  async apply(door, prior, planned, config): Promise<ApplyResult> {
    if (planned === null || config === null) {
      if (!prior || typeof prior.group !== 'string' || typeof prior.name !== 'string') return { newState: null, diagnostics: [] };
      // Destroy: the group pruned with nothing declared plans the revocation of every undeclared
      // token; only this one's is applied (by id: a token revoked meanwhile is found so, not harmed).
      const made = await door.plan(pruned(prior.group));
      if (!made.plan) return { newState: prior, diagnostics: made.diagnostics };
      const prefix = `${address(door, prior.group, prior.name)}#`;
      const revoke = made.plan.changes.filter((c) => c.address.startsWith(prefix) && c.action === 'delete');
      if (revoke.length === 0) return { newState: null, diagnostics: [] };
      const r = await door.apply(made, revoke);
      return { newState: r.ok ? null : prior, diagnostics: [...made.diagnostics.filter((d) => d.severity === 'error'), ...r.diagnostics] };
    }
    const replacing = prior !== null && this.identity.some((k) => prior[k] !== config[k]);
    if ((prior === null || replacing) && typeof config.group === 'string' && typeof config.name === 'string') {
      // Created by someone else between plan and apply: still not this resource's token. The apply
      // walk is its own provider process, so its list of the group was made after the review.
      const { token: live, diagnostics: readDiags } = await liveToken(door, config.group, config.name);
      if (hasTfErrors(readDiags)) return { newState: prior, diagnostics: readDiags };
      if (live) return { newState: null, diagnostics: [adoptionRefused(live, config.group, config.name, this.typeName)] };
    }
    // Planned and applied against the walk's list of the group; a rotation lists afresh in the engine.
    const made = await door.plan(this.document(config));
    const { plan, diagnostics } = made;
    if (!plan || hasTfErrors(diagnostics)) return { newState: prior, diagnostics };
    const at = address(door, config.group as string, config.name as string);
    const change = plan.changes.find((c) => c.address === at && c.action !== 'no-op');
    if (change) {
      const r = await door.apply(made, [change]);
      diagnostics.push(...r.diagnostics);
      if (!r.ok) return { newState: prior, diagnostics };
    }
    // The engine's apply recorded what it did in the walk's list: the new token's id without a list.
    const { token } = await liveToken(door, config.group as string, config.name as string);
    const state: Record<string, CtyValue> = { ...planned };
    state.token_id = token?.id ?? null;
    state.token_expires_at = token?.expires_at ?? null;
    return { newState: state, diagnostics };
  },

  /**
   * A destroy revokes the token: what `plumb plan` checks before a revocation (revoking plumb's own
   * credential, `prune-own-credential`) is checked here too, so apply does not refuse what the plan
   * let through. Planned as apply plans it: the group pruned with nothing declared.
   */
  async planDestroy(door, prior) {
    if (typeof prior.group !== 'string' || typeof prior.name !== 'string') return [];
    const made = await door.plan(pruned(prior.group));
    const prefix = `${address(door, prior.group, prior.name)}#`;
    const revoke = (made.plan?.changes ?? []).filter((c) => c.address.startsWith(prefix) && c.action === 'delete');
    return [...made.diagnostics.filter((d) => d.severity === 'error'), ...revoke.flatMap((c) => door.riskDiagnostics(made.plan, c.address))];
  },

  async read(door, current): Promise<ApplyResult> {
    if (typeof current.group !== 'string' || typeof current.name !== 'string') return { newState: current, diagnostics: [] };
    // Read needs the live token only: the state may lack what a plan needs (an imported token has
    // no sink or expiry policy until the configuration gives them).
    const { token: live, diagnostics } = await identifiedToken(door, current.group, current.name, current.id);
    if (hasTfErrors(diagnostics)) return { newState: current, diagnostics };
    if (!live) return { newState: null, diagnostics: [] };
    const state: Record<string, CtyValue> = { ...current, token_id: live.id, token_expires_at: live.expires_at };
    // Scopes are a set: the configured order is kept while it names the same scopes, or every
    // reordering would plan an update after each refresh, forever (issue 21 defect 3).
    state.scopes = sameSet(current.scopes, live.scopes) ? current.scopes : [...live.scopes];
    if (typeof current.description === 'string') state.description = live.description ?? '';
    if (typeof current.access_level === 'string') {
      const role = ACCESS_LEVELS[live.access_level as keyof typeof ACCESS_LEVELS];
      state.access_level = /^\d+$/.test(current.access_level) ? String(live.access_level) : (role ?? String(live.access_level));
    }
    if (typeof current.expires_at === 'string' && live.expires_at) state.expires_at = live.expires_at;
    return { newState: state, diagnostics: [] };
  },

  /**
   * `GROUP:NAME`, optionally followed by the sink the configuration gives it (`;sink_file=PATH`
   * or `;sink_command=["PROGRAM","ARG"]`) → the token's state; Terraform then reads it. The
   * instance cannot tell the sink, and a nested block in state must equal the configuration's for
   * the plan after an import to be empty, so the id carries it (as other providers carry what the
   * remote cannot tell: kubernetes_manifest's `key=value,…` ids).
   */
  async importState(door, id): Promise<ApplyResult> {
    const parsed = parseImportId(id);
    if ('error' in parsed) return { newState: null, diagnostics: [{ severity: 'error', summary: `Cannot import "${id}"`, detail: parsed.error }] };
    const { group, name, sink } = parsed;
    const { token: live, diagnostics } = await identifiedToken(door, group, name, undefined);
    if (hasTfErrors(diagnostics)) return { newState: null, diagnostics };
    if (!live) return { newState: null, diagnostics: [{ severity: 'error', summary: `No active token named "${name}" in group ${group}`, detail: 'Check the group path and the token name (GROUP:NAME).' }] };
    const state: TfObject = {
      id: null,
      group,
      name,
      description: live.description ?? null,
      scopes: [...live.scopes],
      access_level: ACCESS_LEVELS[live.access_level as keyof typeof ACCESS_LEVELS] ?? String(live.access_level),
      // The live expiry, so -generate-config-out writes it and a configuration that keeps it plans no change.
      expires_at: live.expires_at ?? null,
      rotation: [],
      sink: sink ? [sink] : [],
      sinks: [],
      self: null,
      token_id: live.id,
      token_expires_at: live.expires_at,
    };
    if (!sink) {
      return {
        newState: state,
        diagnostics: [{ severity: 'warning', summary: 'Imported without a sink', detail: `The state holds the token's live expiry as expires_at. Write a sink (and a rotation policy instead of expires_at, if you want one) in the configuration before plumb has to issue a new secret; the first plan shows the sink as added (an update that sends nothing). Importing as ${group}:${name};sink_file=PATH puts the sink in state too, so that plan is empty.` }],
      };
    }
    // The sink is configuration like any other: plumb's rules for it (inside the configuration
    // root, not a configuration file, a directory that exists, …) apply before it enters state.
    const checked = await door.plan(this.document(state));
    const refused = checked.diagnostics.filter((d) => d.severity === 'error' && d.path?.[0] !== undefined && 'attribute' in d.path[0] && d.path[0].attribute === 'sink');
    if (refused.length > 0) return { newState: null, diagnostics: refused };
    return { newState: state, diagnostics: [] };
  },
};
