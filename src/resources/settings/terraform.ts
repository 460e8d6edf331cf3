/**
 * The application settings as a Terraform resource (`plumb_application_settings`) and data source,
 * on plumb's engine through the provider's door (src/resources/terraform.ts). Write-only settings
 * never reach Terraform's state: the document passes them as `${env:…}` references, and a change
 * Terraform cannot see shows through `write_only_revision`.
 */
import { SETTINGS_SHAPE as SHAPE } from './shape.js';
import { randomBytes } from 'node:crypto';
import { SETTINGS, SETTING_RULES, isSecretSetting, responseNameOf } from '../../catalogue/index.js';
import type { SettingSpec } from '../../catalogue/index.js';
import { getApplicationSettings } from '../../api/settings.js';
import type { Plan, ResourceChange } from '../../engine/plan.js';
import { SETTINGS_REASONS } from './reasons.js';
import { UNKNOWN, attributeSteps, containsUnknown, applyFresh, describeChange, isUnknown, shapeParts } from '../terraform.js';
import type { ApplyResult, CtyType, CtyValue, DataSourceDoor, PlanResult, TerraformPart, TfJsonAttribute, TfJsonSchema, TfObject } from '../terraform.js';


const ID = 'application_settings';

/** Attributes of the settings resource that are not settings. */
const META_ATTRIBUTES: readonly string[] = ['id', 'write_only_revision'];

const computed = (description: string, type: CtyType = 'string'): TfJsonAttribute => ({ type, description, description_kind: 'plain', computed: true });

function settingsChange(plan: Plan | undefined): ResourceChange | undefined {
  return plan?.changes.find((c) => c.kind === ID && c.action !== 'no-op');
}

function withoutWriteOnly(v: TfObject): Record<string, CtyValue> {
  const out: Record<string, CtyValue> = { ...v };
  for (const k of Object.keys(out)) if (isSecretSetting(k)) out[k] = null;
  return out;
}

function sameObject(a: TfObject, b: TfObject, skip: readonly string[]): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (!skip.includes(k) && JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null)) return false;
  return true;
}

/**
 * Refresh reads the settings the state holds. Write-only partners are not in state, so a rule that
 * needs one (spam_filter_enabled needs spam_filter_api_key) gets a placeholder: read ignores
 * write-only attributes, and the placeholder is never sent (read applies nothing).
 */
function withWriteOnlyPartners(current: TfObject): TfObject {
  const out: Record<string, CtyValue> = { ...current };
  const given = (n: string) => out[n] !== null && out[n] !== undefined && out[n] !== '' && !(Array.isArray(out[n]) && (out[n] as CtyValue[]).length === 0);
  for (const rule of SETTING_RULES) {
    const needs = rule.kind === 'required-when-enabled' ? out[rule.flag] === true : rule.kind === 'required-with' ? given(rule.field) : false;
    if (!needs || rule.kind === 'not-in-list') continue;
    for (const r of rule.requires) if (isSecretSetting(r) && !given(r)) out[r] = 'plumb-refresh-placeholder';
  }
  return out;
}

/** The cty type of a setting's attribute in the data source (the data source converts live values to it). */
export function settingAttributeType(s: SettingSpec): CtyType {
  switch (s.type) {
    case 'boolean':
      return 'bool';
    case 'integer':
    case 'float':
      return 'number';
    case 'string':
    case 'text':
      return 'string';
    case 'string[]':
    case 'string|string[]':
      return ['list', 'string'];
    case 'integer[]':
      return ['list', 'number'];
    case 'object':
      return ['map', 'bool'];
    case 'hash':
      return 'dynamic';
  }
}

/**
 * A live value as the attribute's type holds it; null when the instance returns something of
 * another shape (the data source reports what it can, it does not fail on one odd field).
 */
function asType(v: unknown, t: CtyType): CtyValue {
  if (v === null || v === undefined) return null;
  if (t === 'dynamic') return JSON.parse(JSON.stringify(v)) as CtyValue;
  if (t === 'bool') return typeof v === 'boolean' ? v : null;
  if (t === 'number') return typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null;
  if (t === 'string') return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
  const [kind, inner] = t as readonly [string, CtyType];
  if (kind === 'list') {
    const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',').map((x) => x.trim()).filter(Boolean) : undefined;
    if (!items) return null;
    const out = items.map((x) => asType(x, inner));
    return out.some((x) => x === null) ? null : out;
  }
  if (kind === 'map' && typeof v === 'object' && !Array.isArray(v)) {
    const out: Record<string, CtyValue> = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, asType(x, inner)]));
    return Object.values(out).some((x) => x === null) ? null : out;
  }
  return null;
}

/** The instance's current settings, read-only; secret settings are left out (write-only). Provider-only: CDKTF binds resources. */
function dataSchema(): TfJsonSchema {
  const attributes: Record<string, TfJsonAttribute> = { id: computed('Always "application_settings".') };
  for (const s of SETTINGS) {
    if (s.removed || s.secret) continue;
    attributes[s.name] = { type: settingAttributeType(s), description: s.description, description_kind: 'plain', computed: true, ...(s.deprecated && { deprecated: true }) };
  }
  return { version: 0, block: { attributes, description: 'The application settings as the instance reports them now (secret settings excluded).', description_kind: 'plain' } };
}

/** A secret setting's description for Terraform users: how to give it there, not in YAML. */
function terraformSecretDescription(d: string): string {
  const own = d.replace(/\s*Secret: write it as \$\{env:NAME\}; plumb never shows it\./, '');
  return `${own} Secret, write-only (Terraform 1.11+): give it from a variable (ephemeral = true, or sensitive), never a literal; Terraform keeps it out of plan and state, and plumb notices a change through write_only_revision.`;
}

export const settingsTerraform: TerraformPart = {
  ...shapeParts(SHAPE),
  mount: 'settings',
  computed: {
    id: computed('Always "application_settings": an instance has one set of settings.'),
    write_only_revision: computed('Changes whenever plumb sends write-only settings (plumb knows they changed from salted fingerprints in its state file); never the secret, nor a hash of it.'),
  },
  // Secret settings: write-only, so Terraform sends them but never stores them in plan or state.
  // Their description is Terraform's: the YAML wording (`${env:NAME}`) is refused under Terraform.
  // Every other setting is optional and computed: a setting the configuration does not write keeps
  // the value state holds (an imported one, or one the configuration stopped writing) instead of
  // planning its removal, so an import that reads the instance's settings plans no change for
  // those the configuration writes with the same value (issue 21 defect 9). plumb manages only the
  // settings the configuration writes either way: the engine plans from the configuration.
  editAttribute: (name, a) =>
    isSecretSetting(name) ? { ...a, sensitive: true, write_only: true, ...(a.description !== undefined && { description: terraformSecretDescription(a.description) }) } : META_ATTRIBUTES.includes(name) || !a.optional ? a : { ...a, computed: true },

  document: (values) => (h) => {
    const blocks = new Set(Object.keys(h.block?.block_types ?? {}));
    const settings: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(values)) {
      if (META_ATTRIBUTES.includes(name) || !h.known(v)) continue;
      if (blocks.has(name)) {
        const b = h.one(v);
        if (b) settings[name] = h.literal(b);
        continue;
      }
      settings[name] = isSecretSetting(name) && typeof v === 'string' ? h.secret(v) : h.literal(v);
    }
    return { settings };
  },

  pathOf: (rest, blocks) => (rest.length > 1 ? attributeSteps(rest.slice(1), blocks) : undefined),

  // Fingerprints of write-only settings, keyed by setting name. Which ones this resource sets is not
  // in Terraform's state (they are write-only), so it takes them all; it consults only those its
  // configuration sets, and a key has one owner (PLUMB_TF_TWO_OWNERS).
  ownsStateEntry: (section) => section === 'settings',

  async plan(door, prior, proposed, config): Promise<PlanResult> {
    const planned: Record<string, CtyValue> = withoutWriteOnly(proposed);
    planned.id = ID;
    planned.write_only_revision = prior?.write_only_revision ?? UNKNOWN;
    // A value known only at apply may be a write-only one, or change what apply sends: the revision is unknown too.
    if (containsUnknown(config)) return { planned: { ...planned, write_only_revision: UNKNOWN }, requiresReplace: [], diagnostics: [] };
    const { plan, diagnostics } = await door.plan(this.document(config));
    const change = settingsChange(plan);
    if (change) {
      const writeOnly = change.attributes.some((a) => a.sensitive || a.writeOnly);
      // Terraform sees only what its state can hold: a change it cannot see (a write-only value, or a
      // difference its refreshed state hides) is shown through the revision attribute.
      if (writeOnly || (prior && sameObject(prior, planned, ['write_only_revision']))) planned.write_only_revision = UNKNOWN;
      if (writeOnly) diagnostics.push({ severity: 'warning', summary: `plumb will send write-only settings: ${change.attributes.filter((a) => a.sensitive || a.writeOnly).map((a) => a.name).join(', ')}`, detail: `${door.instance}.${ID}: ${describeChange(change, SETTINGS_REASONS)}. Their values are never stored in Terraform's state.` });
      diagnostics.push(...door.riskDiagnostics(plan, change.address));
    }
    return { planned, requiresReplace: [], diagnostics };
  },

  async apply(door, prior, planned, config): Promise<ApplyResult> {
    // Destroy forgets the settings and changes nothing on the instance (said at plan).
    if (planned === null || config === null) return { newState: null, diagnostics: [] };
    const { ok, applied, diagnostics } = await applyFresh(door, this.document(config), (plan) => [settingsChange(plan) ?? []].flat());
    if (!ok) return { newState: prior, diagnostics };
    const state: Record<string, CtyValue> = withoutWriteOnly(planned);
    state.id = ID;
    state.write_only_revision = prior?.write_only_revision ?? 'none';
    if (applied.some((c) => c.attributes.some((a) => a.sensitive || a.writeOnly))) state.write_only_revision = randomBytes(8).toString('hex');
    if (isUnknown(state.write_only_revision)) state.write_only_revision = 'none';
    return { newState: state, diagnostics };
  },

  async planDestroy() {
    return [{ severity: 'warning', summary: 'The application settings will be left as they are', detail: 'Settings cannot be deleted; Terraform forgets them and plumb changes nothing on the instance.' }];
  },

  async read(door, current): Promise<ApplyResult> {
    const { plan, diagnostics } = await door.plan(this.document(withWriteOnlyPartners(current)));
    if (!plan) return { newState: current, diagnostics };
    const state: Record<string, CtyValue> = { ...current };
    const change = settingsChange(plan);
    const blockTypes = door.block?.block_types ?? {};
    for (const a of change?.attributes ?? []) {
      if (a.sensitive || a.writeOnly || !(a.name in state) || state[a.name] === null) continue;
      const block = blockTypes[a.name]?.block;
      if (block) {
        // A nested block's value is a list of one object with every attribute of the block.
        if (Array.isArray(state[a.name]) && (state[a.name] as CtyValue[]).length === 0) continue;
        const live = (a.before ?? {}) as Record<string, CtyValue>;
        state[a.name] = [Object.fromEntries(Object.keys(block.attributes ?? {}).map((k) => [k, live[k] ?? null]))];
        continue;
      }
      state[a.name] = (a.before ?? null) as CtyValue;
    }
    return { newState: state, diagnostics };
  },

  /**
   * The instance's settings as they are (one `GET /application/settings`), each current setting
   * that is an attribute of its own and can be written (not a nested block, not secret, deprecated,
   * read-only or fixed): which of them
   * the configuration manages is its choice, and the others are optional and computed, so they
   * keep the imported value without a change. Terraform reads the resource right after.
   */
  async importState(door, id): Promise<ApplyResult> {
    if (id !== ID) return { newState: null, diagnostics: [{ severity: 'error', summary: `Cannot import "${id}"`, detail: 'The application settings are imported with the fixed id "application_settings".' }] };
    const r = await door.read(async (ctx) => getApplicationSettings(ctx.client));
    if (!r.value) return { newState: null, diagnostics: r.diagnostics };
    const live = r.value;
    const attributes = door.block?.attributes ?? {};
    const state: Record<string, CtyValue> = { id, write_only_revision: 'none' };
    for (const s of SETTINGS) {
      const type = attributes[s.name]?.type;
      if (s.removed || s.secret || s.deprecated || s.readOnly || s.fixed || !type) continue;
      state[s.name] = asType(live[responseNameOf(s.name)], type);
    }
    return { newState: state, diagnostics: [] };
  },

  dataSource: {
    schema: dataSchema,
    async read(door: DataSourceDoor): Promise<ApplyResult> {
      const r = await door.read(async (ctx) => getApplicationSettings(ctx.client));
      if (!r.value) return { newState: null, diagnostics: r.diagnostics };
      const live = r.value;
      const state: Record<string, CtyValue> = { id: ID };
      for (const s of SETTINGS) {
        if (s.removed || s.secret) continue;
        state[s.name] = asType(live[responseNameOf(s.name)], settingAttributeType(s));
      }
      return { newState: state, diagnostics: [] };
    },
  },
};

