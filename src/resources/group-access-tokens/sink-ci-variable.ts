/**
 * The ci_variable sink (docs/tokens.md, "Delivering to CI/CD variables"): a token's secret written
 * into a CI/CD variable of a project or a group, read back and confirmed; checked at plan time (the
 * owner exists and plumb may write its variables); and read again by later plans to find a variable
 * deleted or edited by hand (drift).
 *
 * Invariants:
 * - The secret travels in a request body only, to the instance of the token or to the sink's
 *   `instance:` (a client the session opened for that instance: its URL pin and its credential).
 * - What plumb keeps of a delivery is a salted, slow fingerprint of the value and the variable's
 *   metadata (`DeliveredVariable`), never the value.
 * - One list of an owner's variables serves every check and drift comparison of that owner in a
 *   session (`variableList`); a write forgets it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../api/errors.js';
import type { ApiClient } from '../../api/client.js';
import { createVariable, deleteVariable, getVariable, listVariables, updateVariable } from '../../api/variables.js';
import type { CiVariable, CiVariableProps, VariableOwner } from '../../api/variables.js';
import { fingerprintIssued, matchesFingerprint } from '../../engine/fingerprint.js';
import type { SecretFingerprint } from '../../engine/fingerprint.js';
import type { InstanceContext } from '../../engine/resource.js';
import { credentialOf } from '../../engine/risks.js';
import type { CiVariableSink } from './model.js';
import { describeVariable, variableOwnerOf } from './variable-address.js';
import { PlumbError } from '../../diagnostics/error.js';

/** The metadata of a variable plumb wrote, as the service shows it. */
export interface VariableMeta {
  readonly protected: boolean;
  readonly masked: boolean;
  readonly hidden: boolean;
  readonly raw: boolean;
  readonly variable_type: 'env_var' | 'file';
  readonly environment_scope: string;
  /** Only when the sink declares one (otherwise whatever the variable has is left alone). */
  readonly description?: string;
}

/** What the state keeps of one delivery to a variable: never the value. */
export interface DeliveredVariable {
  /** Salted fingerprint of the value written (engine/fingerprint.ts, `fingerprintIssued`). */
  readonly fingerprint: SecretFingerprint;
  readonly meta: VariableMeta;
}

/** Delivery failed; the message names the variable, never the value. */
class VariableSinkError extends PlumbError {
  declare readonly code: 'PLUMB_SINK_FAILED';
  constructor(summary: string) {
    super('PLUMB_SINK_FAILED', summary);
  }
}

export function declaredMeta(sink: CiVariableSink): VariableMeta {
  return {
    protected: sink.protected,
    masked: sink.masked || sink.hidden,
    hidden: sink.hidden,
    raw: sink.raw,
    variable_type: sink.variableType,
    environment_scope: sink.environmentScope,
    ...(sink.description !== undefined && { description: sink.description }),
  };
}

function liveMeta(v: CiVariable, declared: VariableMeta): VariableMeta {
  return {
    protected: v.protected,
    masked: v.masked,
    hidden: v.hidden === true,
    raw: v.raw,
    variable_type: v.variable_type,
    environment_scope: v.environment_scope,
    ...(declared.description !== undefined && { description: v.description ?? '' }),
  };
}

/** The fields of `a` and `b` that differ, by name. */
export function metaDifferences(a: VariableMeta, b: VariableMeta): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof VariableMeta>;
  return [...keys].filter((k) => a[k] !== b[k]).sort();
}

/** Constant-time equality of two strings (through their sha256, so the lengths do not show). */
export function sameSecretValue(a: string, b: string): boolean {
  const digest = (v: string) => createHash('sha256').update(v).digest();
  return timingSafeEqual(digest(a), digest(b));
}

const why = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Writes the secret into the sink's variable: an update (PUT, `filter[environment_scope]`) of the
 * variable with that key and scope, or, when there is none (404), a create (POST); then reads it
 * back (GET) and compares it by fingerprint. A hidden variable's value is never shown again: its
 * metadata is confirmed and the receipt says "delivered, not verifiable". A variable that exists
 * hidden where the sink is not (or the reverse) cannot be changed so by an update: it is deleted
 * and created again.
 */
export async function deliverToVariable(sink: CiVariableSink, secret: string, client: ApiClient): Promise<{ status: 'verified' | 'unverifiable'; note: string; record: DeliveredVariable }> {
  const owner = variableOwnerOf(sink);
  const where = describeVariable(undefined, sink);
  const meta = declaredMeta(sink);
  const props: CiVariableProps = {
    value: secret,
    variable_type: meta.variable_type,
    protected: meta.protected,
    masked: meta.masked,
    raw: meta.raw,
    environment_scope: meta.environment_scope,
    ...(meta.description !== undefined && { description: meta.description }),
  };
  const fp = fingerprintIssued(secret);
  try {
    const written = await updateVariable(client, owner, sink.key, sink.environmentScope, props);
    if ((written.hidden === true) !== sink.hidden) {
      await deleteVariable(client, owner, sink.key, sink.environmentScope);
      await createVariable(client, owner, sink.key, { ...props, ...(sink.hidden && { masked_and_hidden: true }) });
    }
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404 && /variable/i.test(err.message))) throw new VariableSinkError(`${where}: ${why(err)}`);
    try {
      await createVariable(client, owner, sink.key, { ...props, ...(sink.hidden && { masked_and_hidden: true }) });
    } catch (createErr) {
      throw new VariableSinkError(`${where}: ${why(createErr)}`);
    }
  }
  let back: CiVariable;
  try {
    back = await getVariable(client, owner, sink.key, sink.environmentScope);
  } catch (err) {
    throw new VariableSinkError(`${where}: written, but reading it back failed: ${why(err)}`);
  }
  const differs = metaDifferences(meta, liveMeta(back, meta));
  if (differs.length > 0) throw new VariableSinkError(`${where}: written, but the variable read back differs in ${differs.join(', ')}`);
  const record: DeliveredVariable = { fingerprint: fp, meta };
  if (back.value === null || back.hidden === true) return { status: 'unverifiable', note: `secret delivered to ${where} (hidden: delivered, not verifiable)`, record };
  // Compared with the secret in hand; the fingerprint is what the state keeps.
  if (!sameSecretValue(back.value, secret)) throw new VariableSinkError(`${where}: written, but the value read back is not the secret plumb wrote`);
  return { status: 'verified', note: `secret delivered to ${where}, read back and confirmed`, record };
}

// --- plan time: checks and drift ------------------------------------------------------------

/** The instance context a sink reaches: its own `instance:`, else the token's. */
export function sinkContext(ctx: InstanceContext, sink: CiVariableSink): InstanceContext | undefined {
  return sink.instance === undefined || sink.instance === ctx.instance.name ? ctx : ctx.peer?.(sink.instance);
}

const ownerKey = (ctx: InstanceContext, o: VariableOwner) => `ci-variables:${ctx.instance.name}:${o.kind}:${String(o.ref).toLowerCase()}`;

/**
 * The owner's variables, listed once per session (a plan's check and drift, and the apply after
 * it, share one list per project or group).
 */
export function variableList(ctx: InstanceContext, owner: VariableOwner): Promise<CiVariable[]> {
  const lists = ctx.memo.session.own('group_access_token:variable-lists', () => new Map<string, Promise<CiVariable[]>>());
  const key = ownerKey(ctx, owner);
  let list = lists.get(key);
  if (!list) {
    list = listVariables(ctx.client, owner);
    lists.set(key, list);
    const mine = list;
    list.catch(() => {
      if (lists.get(key) === mine) lists.delete(key);
    });
  }
  return list;
}

/** Forgets the session's list of the sink's owner after a write to it (a later read lists afresh). */
export function forgetVariableList(ctx: InstanceContext, sink: CiVariableSink): void {
  const target = sinkContext(ctx, sink);
  if (!target) return;
  target.memo.session.own('group_access_token:variable-lists', () => new Map<string, Promise<CiVariable[]>>()).delete(ownerKey(target, variableOwnerOf(sink)));
}

/** A problem with a ci_variable sink found before any write. */
export interface VariableSinkProblem {
  readonly summary: string;
  readonly suggestion: string;
  /** The key under `ci_variable` to locate it at. */
  readonly key: 'project' | 'group' | 'instance';
}

/**
 * Whether plumb can deliver into the sink: the instance is open in this run, the project or group
 * exists and plumb's credential may manage its variables (listing them needs the same role as
 * writing them: Maintainer of a project, Owner of a group, or an administrator), and the credential
 * has the `api` scope (a read-only token lists but cannot write). A token's secret satisfies the
 * masking rules of both masked forms (at least 8 characters of the token alphabet, no whitespace),
 * so the value itself needs no check; the key's form is the schema's, offline.
 */
export async function checkVariableSink(ctx: InstanceContext, sink: CiVariableSink): Promise<{ problem?: VariableSinkProblem; live?: CiVariable[] }> {
  const target = sinkContext(ctx, sink);
  const ownerWord = sink.project !== undefined ? 'project' : 'group';
  if (!target) {
    return {
      problem: {
        key: 'instance',
        summary: `instance "${sink.instance}" is not open in this run (not selected with --instance, its URL not allowed, or its token not set)`,
        suggestion: `run without --instance (or with --instance ${sink.instance} too), and set the token of instance "${sink.instance}"`,
      },
    };
  }
  const owner = variableOwnerOf(sink);
  let live: CiVariable[];
  try {
    live = await variableList(target, owner);
  } catch (err) {
    const status = err instanceof ApiError ? err.status : undefined;
    const ref = sink.project ?? sink.group;
    if (status === 404) return { problem: { key: ownerWord, summary: `${ownerWord} "${ref}" does not exist on instance "${target.instance.name}" (or plumb's credential cannot see it)`, suggestion: `check the ${ownerWord} path, or give plumb's credential access to it` } };
    if (status === 403 || status === 401) {
      return {
        problem: {
          key: ownerWord,
          summary: `plumb's credential on instance "${target.instance.name}" may not manage the CI/CD variables of ${ownerWord} "${ref}"`,
          suggestion: ownerWord === 'project' ? 'give it the Maintainer role (or more) in the project, or use an administrator\'s token' : 'give it the Owner role in the group, or use an administrator\'s token',
        },
      };
    }
    return { problem: { key: ownerWord, summary: `the CI/CD variables of ${ownerWord} "${ref}" could not be read: ${ctx.secrets.redact(why(err))}`, suggestion: 'plan again once the instance answers' } };
  }
  const credential = await credentialOf(target);
  const scopes = credential.token?.scopes;
  if (scopes && !scopes.includes('api')) {
    return {
      problem: {
        key: ownerWord,
        summary: `plumb's credential on instance "${target.instance.name}" has scopes ${scopes.join(', ')}: it can read variables but not write them`,
        suggestion: 'use a credential with the api scope',
      },
      live,
    };
  }
  return { live };
}

/** What a later plan finds where a delivery was recorded. */
export type VariableDrift = { readonly kind: 'deleted' } | { readonly kind: 'edited'; readonly fields: readonly string[] } | { readonly kind: 'value-changed' };

/**
 * Compares the variable the sink names, in the owner's list, with what plumb recorded when it
 * delivered: gone (deleted by hand), other metadata (edited), or another value (a visible value
 * that does not match the recorded fingerprint). A hidden variable's value cannot be compared.
 */
export async function variableDrift(live: readonly CiVariable[], sink: CiVariableSink, recorded: DeliveredVariable): Promise<VariableDrift | undefined> {
  const v = live.find((x) => x.key === sink.key && x.environment_scope === sink.environmentScope);
  if (!v) return { kind: 'deleted' };
  const fields = metaDifferences(recorded.meta, liveMeta(v, recorded.meta));
  if (fields.length > 0) return { kind: 'edited', fields };
  if (typeof v.value === 'string' && v.hidden !== true && !(await matchesFingerprint(v.value, recorded.fingerprint))) return { kind: 'value-changed' };
  return undefined;
}
