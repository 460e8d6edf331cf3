/**
 * The Terraform side of the kind contract (src/resources/kind.ts): Terraform's values as plumb
 * holds them (cty values without their wire format), the JSON form of a schema, and what a kind's
 * optional `terraform` part implements and receives. The provider (src/provider/) is one generic
 * adapter over these parts: it never names a kind, and nothing here loads gRPC or msgpack, so a
 * kind's terraform.ts costs the CLI nothing but its own code.
 */
import type { InstanceContext, ReadCache } from '../engine/resource.js';
import type { Plan, ResourceChange } from '../engine/plan.js';
import type { TerraformResourceShape } from '../catalogue/kinds.js';

/** A cty type as the schema writes it in JSON. */
export type CtyType =
  | 'string'
  | 'number'
  | 'bool'
  | 'dynamic'
  | readonly ['list' | 'set' | 'map', CtyType]
  | readonly ['object', Readonly<Record<string, CtyType>>]
  | readonly ['object', Readonly<Record<string, CtyType>>, readonly string[]]
  | readonly ['tuple', readonly CtyType[]];

/** The one unknown value ("known after apply"). Compare with `===` or {@link isUnknown}. */
export const UNKNOWN: unique symbol = Symbol('cty.unknown');
export type Unknown = typeof UNKNOWN;

export type CtyValue = null | Unknown | string | number | boolean | readonly CtyValue[] | { readonly [key: string]: CtyValue };

export function isUnknown(v: unknown): v is Unknown {
  return v === UNKNOWN;
}

/** Whether a value holds an unknown anywhere inside it. */
export function containsUnknown(v: CtyValue): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(containsUnknown);
  if (v !== null && typeof v === 'object') return Object.values(v).some(containsUnknown);
  return false;
}

export type DescriptionKind = 'plain' | 'markdown';

export interface TfJsonAttribute {
  readonly type?: CtyType;
  readonly nested_type?: TfJsonNestedType;
  readonly description?: string;
  readonly description_kind?: DescriptionKind;
  readonly required?: boolean;
  readonly optional?: boolean;
  readonly computed?: boolean;
  readonly sensitive?: boolean;
  readonly deprecated?: boolean;
  readonly write_only?: boolean;
}

export interface TfJsonNestedType {
  readonly attributes: Readonly<Record<string, TfJsonAttribute>>;
  readonly nesting_mode: 'single' | 'list' | 'set' | 'map';
}

export interface TfJsonBlockType {
  readonly nesting_mode: 'single' | 'list' | 'set' | 'map' | 'group';
  readonly block: TfJsonBlock;
  readonly min_items?: number;
  readonly max_items?: number;
}

export interface TfJsonBlock {
  readonly attributes?: Readonly<Record<string, TfJsonAttribute>>;
  readonly block_types?: Readonly<Record<string, TfJsonBlockType>>;
  readonly description?: string;
  readonly description_kind?: DescriptionKind;
  readonly deprecated?: boolean;
}

export interface TfJsonSchema {
  readonly version: number;
  readonly block: TfJsonBlock;
}

/** A resource's values as Terraform sends them: one object, attribute by attribute. */
export type TfObject = { readonly [key: string]: CtyValue };

/** A step of a Terraform attribute path. */
export type PathStep = { readonly attribute: string } | { readonly key: string } | { readonly index: number };

/** A diagnostic as Terraform shows it. */
export interface TfDiagnostic {
  readonly severity: 'error' | 'warning';
  readonly summary: string;
  readonly detail: string;
  readonly path?: PathStep[];
}

export interface PlanResult {
  readonly planned: CtyValue;
  readonly requiresReplace: PathStep[][];
  readonly diagnostics: TfDiagnostic[];
}

export interface ApplyResult {
  readonly newState: CtyValue;
  readonly diagnostics: TfDiagnostic[];
}

/** Helpers a kind writes its configuration document with. */
export interface DocumentHelpers {
  /** The directory relative paths in Terraform's configuration are relative to. */
  readonly cwd: string;
  /** A value plumb's loader must read literally (strings are not interpolated); unknown parts dropped. */
  literal(v: CtyValue): unknown;
  /** A write-only value: passed to the loader in its environment, never written to disk; returns the `${env:…}` reference. */
  secret(v: string): string;
  /** Whether a value is known and not null. */
  known(v: CtyValue | undefined): v is Exclude<CtyValue, null>;
  /** A nested block's value: Terraform gives a list of at most one object. */
  one(v: CtyValue | undefined): TfObject | undefined;
  /** The served schema of this kind's resource type (nested block names, attributes). */
  readonly block: TfJsonBlock | undefined;
}

/**
 * What the instance document of one Terraform operation declares for this kind: the keys under
 * `instances.<name>` (`{settings: …}`, `{groups: {G: …}}`, `{projects: {P: {pages: …}}}`).
 * Fragments of several kinds deep-merge.
 */
export type InstanceFragment = Record<string, unknown>;

/** A fragment builder: called with the helpers of the one document it goes into. */
export type FragmentBuilder = (h: DocumentHelpers) => InstanceFragment;

/** An engine plan of one operation, with the configuration it was made from (opaque to kinds). */
export interface DoorPlan {
  readonly plan?: Plan;
  readonly diagnostics: TfDiagnostic[];
}

/** What a data source reads through, for one read: the configured instance. */
export interface DataSourceDoor {
  readonly today: string;
  /** The name of the one instance the provider manages. */
  readonly instance: string;
  /** Runs a read against the configured instance (the provider's url, token and connection rules). */
  read<T>(fn: (ctx: InstanceContext) => Promise<T>): Promise<{ value?: T; diagnostics: TfDiagnostic[] }>;
}

/**
 * A read-only data source: a kind's (`TerraformPart.dataSource`, named as the kind's resource) or
 * one the provider serves by itself (src/provider/data-sources.ts: the group listings).
 */
export interface TerraformDataSource {
  readonly typeName: string;
  /** Its schema when the generated document (schemas/terraform-provider.schema.json) does not hold it. */
  readonly schema?: () => TfJsonSchema;
  /** Offline checks of its configuration; a value not known yet is skipped. */
  validate?(config: TfObject): TfDiagnostic[];
  /**
   * Reads it. `config` may hold values not known yet (Terraform normally defers such a read to
   * apply): then the computed attributes are unknown and nothing is read.
   */
  read(door: DataSourceDoor, config: TfObject): Promise<ApplyResult>;
}

/**
 * What the provider gives a kind's `terraform` part for one RPC: plumb's engine, reached with a
 * configuration document the kind writes. The kind never builds a client or a plan itself.
 */
export interface TerraformDoor {
  readonly today: string;
  /** Runs the engine's plan for the document `build` writes. `fresh`: read the instance anew, not through the walk's shared reads. */
  plan(build: FragmentBuilder, opts?: { readonly fresh?: boolean }): Promise<DoorPlan>;
  /** Applies exactly `changes` of a plan `plan` returned, with the engine, through the walk's shared reads (which the kind keeps true). */
  apply(planned: DoorPlan, changes: readonly ResourceChange[]): Promise<{ ok: boolean; diagnostics: TfDiagnostic[] }>;
  /**
   * The plan's risks of one change: an unaccepted one is an error at plan, at the attribute that
   * asks for it, with help naming the attribute that accepts it; an accepted one, a warning.
   */
  riskDiagnostics(plan: Plan | undefined, address: string): TfDiagnostic[];
  /** Runs a read against the configured instance (no resource declared): for refresh and import. */
  read<T>(fn: (ctx: InstanceContext) => Promise<T>): Promise<{ value?: T; diagnostics: TfDiagnostic[] }>;
  /** Reads shared by the RPCs of one walk (the same cache the engine's plan and apply read through). */
  readonly reads: ReadCache & { forget(key: string): void };
  /** The name of the one instance the provider manages (the first segment of plumb's addresses). */
  readonly instance: string;
  /** The served schema of this resource type (nested blocks, attributes). */
  readonly block: TfJsonBlock | undefined;
}

/**
 * A kind's Terraform resource: its type, the attributes that say which resource it is, how its
 * values become a plumb document and a plumb pointer becomes an attribute path, and the four
 * operations, each on plumb's engine through the door.
 */
export interface TerraformPart {
  /** Its shape (type, where one resource sits, identity): the schema generator and the CDKTF reader read it. */
  readonly shape: TerraformResourceShape;
  /** The resource type, as the CDKTF constructs synthesize it. */
  readonly typeName: string;
  /** Attributes that say which resource this is: a change of one replaces it; they must be literal in CDKTF. */
  readonly identity: readonly string[];
  /** The key under an instance this kind's configuration lives in (`settings`, `groups`, `projects`). */
  readonly mount: string;
  /** Attributes only the provider serves (computed ids, digests): added to the generated schema. */
  readonly computed?: Readonly<Record<string, TfJsonAttribute>>;
  /** Changes the provider makes to a generated attribute (write-only secrets); never renames or retypes. */
  editAttribute?(name: string, a: TfJsonAttribute): TfJsonAttribute;
  /** Nested-block attributes the provider does not serve because Terraform refuses them anyway (`sink.stdout`): block name → attribute names. */
  readonly hidden?: Readonly<Record<string, readonly string[]>>;
  /** The document of a resource's values (`config` or `state`). */
  document(values: TfObject): FragmentBuilder;
  /**
   * Where a pointer under the instance (`rest`: its segments after `instances/<name>`, starting at
   * `mount`) is in this resource's values; undefined: the resource as a whole.
   */
  pathOf(rest: readonly string[], blocks: ReadonlySet<string>): PathStep[] | undefined;
  /**
   * Whether an entry of plumb's former state file (section, key, entry) belongs to the resource
   * with these values: the provider moves such entries into the resource's private state once
   * (src/provider/private-state.ts). Absent: the kind remembers nothing between runs.
   */
  ownsStateEntry?(section: string, key: string, entry: unknown, values: TfObject): boolean;
  /** Checks only Terraform needs (offline), added to plumb's own. */
  validate?(config: TfObject): TfDiagnostic[];
  plan(door: TerraformDoor, prior: TfObject | null, proposed: TfObject, config: TfObject): Promise<PlanResult>;
  apply(door: TerraformDoor, prior: TfObject | null, planned: TfObject | null, config: TfObject | null): Promise<ApplyResult>;
  /** A destroy's plan (Terraform plans it with no configuration): what apply would refuse, and what the destroy leaves as it is. */
  planDestroy?(door: TerraformDoor, prior: TfObject): Promise<TfDiagnostic[]>;
  read(door: TerraformDoor, current: TfObject): Promise<ApplyResult>;
  importState(door: TerraformDoor, id: string): Promise<ApplyResult>;
  /** A read-only data source of the same name, when the kind serves one. */
  readonly dataSource?: {
    readonly schema: () => TfJsonSchema;
    read(door: DataSourceDoor, config: TfObject): Promise<ApplyResult>;
  };
}

/** Whether any error is among the diagnostics. */
export function hasTfErrors(ds: readonly TfDiagnostic[]): boolean {
  return ds.some((d) => d.severity === 'error');
}

/**
 * Apply's common path for a kind's Terraform resource: the engine's plan of its document made
 * afresh (read from the instance, not through the walk's shared reads), then exactly the changes
 * `pick` takes from that plan applied. `ok: false` when the plan or the apply failed: the
 * diagnostics say why, and the resource keeps its prior state. A warning the apply gives again
 * after the fresh plan gave it is not repeated. `applied`: the changes sent.
 */
export async function applyFresh(
  door: TerraformDoor,
  build: FragmentBuilder,
  pick: (plan: Plan) => readonly ResourceChange[],
): Promise<{ ok: boolean; applied: readonly ResourceChange[]; diagnostics: TfDiagnostic[] }> {
  const made = await door.plan(build, { fresh: true });
  const { plan, diagnostics } = made;
  if (!plan || hasTfErrors(diagnostics)) return { ok: false, applied: [], diagnostics };
  const changes = pick(plan);
  if (changes.length === 0) return { ok: true, applied: [], diagnostics };
  const r = await door.apply(made, changes);
  diagnostics.push(...r.diagnostics.filter((d) => !(d.severity === 'warning' && diagnostics.some((x) => x.summary === d.summary))));
  return { ok: r.ok, applied: changes, diagnostics };
}

/** A change's action and reasons, for a plan warning: `update: declared values differ from the instance; …`, the reasons in words (`texts`: the kind's), never their ids. */
export function describeChange(c: ResourceChange, texts: Readonly<Record<string, string>>): string {
  return `${c.action}${c.reasons.length > 0 ? `: ${c.reasons.map((r) => texts[r] ?? r).join('; ')}` : ''}`;
}

/** What a part derives from its shape: the type name and the identity attributes' names. */
export function shapeParts(shape: TerraformResourceShape): Pick<TerraformPart, 'shape' | 'typeName' | 'identity'> {
  return { shape, typeName: shape.type, identity: shape.identity.map((i) => i.name) };
}

/**
 * The attribute path of a pointer's segments below the resource: a nested block (max one) is its
 * attribute then element 0, a number is a list index, anything else an attribute.
 */
export function attributeSteps(rest: readonly string[], blocks: ReadonlySet<string>): PathStep[] {
  return rest.flatMap((seg, i): PathStep[] => (i === 0 ? (blocks.has(seg) && rest.length > 1 ? [{ attribute: seg }, { index: 0 }] : [{ attribute: seg }]) : /^\d+$/.test(seg) ? [{ index: Number(seg) }] : [{ attribute: seg }]));
}
