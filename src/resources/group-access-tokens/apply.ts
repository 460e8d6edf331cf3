/**
 * Applying one planned token change (docs/tokens.md): create, rotate, replace or revoke, with the
 * invariants of provider.ts: a sink checked before anything is issued, a create or rotate never
 * repeated (the group is listed again to learn what happened), a rotation only of a token a list
 * made just before shows active, a replacement delivered before the old token is revoked.
 */
import { createGroupAccessToken, revokeGroupAccessToken, rotateGroupAccessToken } from '../../api/group-access-tokens.js';
import type { AccessLevel, GroupAccessToken, NewGroupAccessToken } from '../../api/group-access-tokens.js';
import { ApiAmbiguousError, ApiError, describeReason } from '../../api/errors.js';
import type { PathParam } from '../../api/path.js';
import type { DesiredAccessToken, TokenSink } from './model.js';
import { joinPointer } from '../../config/pointer.js';
import type { PlanDiagnostic, ResourceChange } from '../../engine/plan.js';
import type { ApplyResponse, InstanceContext } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import { checkSink, describeSink } from './sinks.js';
import type { SinkProblem } from './sinks.js';
import { deliverToSinks, putBackSinks } from './deliver-all.js';
import type { Prior } from './sink-restore.js';
import type { DeliveredVariable } from './sink-ci-variable.js';
import { forgetVariableList } from './sink-ci-variable.js';
import { variableSinkId } from './variable-address.js';
import type { TokenNote, TokenSlot } from './state.js';
import type { TokenPayload } from './payload.js';
import { isActive, liveState } from './identity.js';
import { issueMayHaveActed, withIssued, withRevoked } from './apply-steps.js';
import { applyOverlap } from './apply-overlap.js';
import type { OverlapSteps } from './apply-overlap.js';
import { confirmList, env, findDeclared, groupParam, sharedList, sinkCheckCache, tokenListKey, tokenState } from './shared.js';

/** Applies one change: a `TokenApply` per change, its notes and diagnostics its own. */
export function applyTokenChange(ctx: InstanceContext, change: ResourceChange, payload: TokenPayload): Promise<ApplyResponse> {
  return new TokenApply(ctx, change, payload).run();
}

class TokenApply {
  readonly #ctx: InstanceContext;
  readonly #change: ResourceChange;
  readonly #p: TokenPayload;
  readonly #g: PathParam;
  readonly #notes: string[] = [];
  readonly #diagnostics: PlanDiagnostic[] = [];

  constructor(ctx: InstanceContext, change: ResourceChange, payload: TokenPayload) {
    this.#ctx = ctx;
    this.#change = change;
    this.#p = payload;
    this.#g = groupParam(this.#p.group);
  }

  async run(): Promise<ApplyResponse> {
    const p = this.#p;
    let declared: DesiredAccessToken | undefined;
    if (p.op === 'none') return this.#done();
    if (p.op !== 'delete') {
      declared = findDeclared(this.#ctx.instance, p.group, p.name);
      let problem: SinkProblem | undefined = declared ? undefined : { summary: 'it is no longer declared', suggestion: 'make a new plan', key: 'file' as const };
      let at = declared?.pointer;
      if (declared && declared.sinks.length === 0) problem = checkSink(undefined, env(this.#ctx));
      for (const sink of declared?.sinks ?? []) {
        problem = checkSink(sink, env(this.#ctx), sinkCheckCache(this.#ctx));
        if (problem) {
          at = sink.pointer ? joinPointer(sink.pointer, problem.key) : at;
          break;
        }
      }
      if (problem || !declared) {
        return this.#fail('PLUMB_TOKEN_SINK_UNUSABLE', `Token "${p.name}" cannot receive its secret: ${problem?.summary}; nothing was requested`, problem?.suggestion, at);
      }
    }
    const before = await this.#before();
    this.#forgetStaleNotes(before);
    switch (p.op) {
      case 'create':
        return this.#create(declared!, before);
      case 'rotate':
        return this.#rotate(declared!, before);
      case 'replace':
        return this.#replace(declared!, before);
      case 'overlap':
        return applyOverlap(this.#steps(), declared!, before);
      case 'delete':
        return this.#delete(before);
    }
  }

  // --- the four operations ---------------------------------------------------------------------

  async #create(t: DesiredAccessToken, before: GroupAccessToken[]): Promise<ApplyResponse> {
    const p = this.#p;
    const pending = this.#revokePendingIds();
    const existing = before.filter((x) => x.name === p.name && isActive(x) && !pending.has(x.id));
    if (existing.length > 0) {
      return this.#fail(
        'PLUMB_PLAN_STALE',
        `An active token named "${p.name}" exists now (id ${existing.map((x) => x.id).join(', ')}); it appeared after the plan was made`,
        'run `plumb plan` again; nothing was created',
      );
    }
    let issued: NewGroupAccessToken;
    await this.#intend('create');
    try {
      issued = await createGroupAccessToken(this.#ctx.client, this.#g, this.#createProps());
    } catch (err) {
      return this.#afterFailedIssue(err, before, 'create');
    }
    this.#ctx.secrets.add(issued.token);
    this.#record(withIssued(issued));
    this.#notes.push(`created token id ${issued.id} (expires ${issued.expires_at ?? 'never'})`);
    const delivered = await this.#deliver(t, issued);
    if (delivered) return this.#done();
    // The new token is unusable and nothing depends on it yet: revoke it.
    const revoked = await this.#revoke(issued.id);
    if (revoked) {
      const slot = this.#slot();
      this.#updateSlot({ revokedByPlumb: [...(slot?.revokedByPlumb ?? []), issued.id] });
      return this.#stop(
        'PLUMB_TOKEN_SECRET_NOT_DELIVERED',
        `The secret of the new token "${p.name}" (id ${issued.id}) could not be delivered; the token was revoked again`,
        `State now: no active token named "${p.name}" was left by this run (id ${issued.id} is revoked). The next plan creates it again.`,
        'fix the sink and run `plumb apply` again',
      );
    }
    this.#remember({ id: issued.id, name: p.name, kind: 'secret-not-received' });
    return this.#stop(
      'PLUMB_TOKEN_SECRET_NOT_DELIVERED',
      `The secret of the new token "${p.name}" (id ${issued.id}) could not be delivered, and revoking it failed`,
      `State now: token id ${issued.id} is active but nobody has its secret. plumb noted it in ${this.#ctx.state.file}; the next plan rotates it.`,
      'fix the sink and run `plumb apply` again',
    );
  }

  async #rotate(t: DesiredAccessToken, before: GroupAccessToken[]): Promise<ApplyResponse> {
    const p = this.#p;
    const target = before.find((x) => x.id === p.tokenId);
    if (!target || !isActive(target)) {
      return this.#fail(
        'PLUMB_PLAN_STALE',
        `Token "${p.name}" (id ${p.tokenId}) is ${target ? liveState(target) : 'gone'} now; it was not rotated`,
        'plumb never rotates a token that is not active (rotating a revoked token revokes its whole family); run `plumb plan` again',
      );
    }
    let issued: NewGroupAccessToken;
    await this.#intend('rotate', target.id);
    try {
      issued = await rotateGroupAccessToken(this.#ctx.client, this.#g, p.self ? 'self' : target.id, { expires_at: p.expiresAt! });
    } catch (err) {
      if (p.self) return this.#afterFailedSelfRotate(err, target);
      return this.#afterFailedIssue(err, before, 'rotate');
    }
    this.#ctx.secrets.add(issued.token);
    this.#record((list) => withIssued(issued)(withRevoked(target.id)(list)));
    // The old credential is revoked from this moment: switch before anything else is sent.
    if (p.self) this.#ctx.client.replaceToken(issued.token);
    // A self-rotation rotates whatever token authenticates: the declared one only when the names agree.
    const selfMismatch = p.self === true && issued.name !== t.name;
    this.#notes.push(
      selfMismatch
        ? `rotated plumb's credential "${issued.name}" → id ${issued.id} (expires ${issued.expires_at ?? 'never'}); the old credential is revoked; "${t.name}" (id ${target.id}) was not rotated`
        : `rotated id ${target.id} → id ${issued.id} (expires ${issued.expires_at ?? 'never'}); id ${target.id} is revoked`,
    );
    if (p.self) this.#notes.push('plumb uses the new secret for the rest of this run');
    this.#forget(target.id);
    const delivered = await this.#deliver(t, issued);
    if (p.self && issued.name !== t.name) {
      return this.#stop(
        'PLUMB_TOKEN_SELF_MISMATCH',
        `plumb's own credential is token "${issued.name}", not "${t.name}": the instance rotated "${issued.name}" (now id ${issued.id})`,
        `Its new secret went to the sink of "${t.name}"${delivered ? '' : ' (delivery failed, see above)'} and plumb used it for the rest of this run. "${t.name}" itself was not rotated.`,
        `move \`self: true\` to the token plumb authenticates with ("${issued.name}")`,
      );
    }
    if (delivered) return this.#confirmRotation(target.id, issued.id);
    // Rotating revoked the old token: revoking the new one would leave consumers with nothing.
    this.#remember({ id: issued.id, name: p.name, kind: 'secret-not-received' });
    return this.#stop(
      'PLUMB_TOKEN_SECRET_NOT_DELIVERED',
      `Token "${p.name}" was rotated (id ${target.id} → id ${issued.id}) but the new secret could not be delivered`,
      `State now: id ${target.id} is revoked; id ${issued.id} is active and its secret is lost. plumb noted it in ${this.#ctx.state.file}; the next plan rotates id ${issued.id} (safe: it is active).${p.self ? ' plumb used the new secret for the rest of this run, but it is not stored anywhere: set token_env by hand before the next run or a group Owner must rotate it.' : ''}`,
      'fix the sink and run `plumb apply` again',
    );
  }

  async #replace(t: DesiredAccessToken, before: GroupAccessToken[]): Promise<ApplyResponse> {
    const p = this.#p;
    const old = before.find((x) => x.id === p.tokenId);
    if (!old || !isActive(old)) {
      return this.#fail('PLUMB_PLAN_STALE', `Token "${p.name}" (id ${p.tokenId}) is ${old ? liveState(old) : 'gone'} now; nothing was replaced`, 'run `plumb plan` again');
    }
    let issued: NewGroupAccessToken;
    await this.#intend('replace', old.id);
    try {
      issued = await createGroupAccessToken(this.#ctx.client, this.#g, this.#createProps());
    } catch (err) {
      return this.#afterFailedIssue(err, before, 'replace');
    }
    this.#ctx.secrets.add(issued.token);
    this.#record(withIssued(issued));
    this.#notes.push(`created replacement id ${issued.id} (expires ${issued.expires_at ?? 'never'})`);
    // The old token stays valid until every sink holds the new one: as for an overlap, the sinks
    // already written are put back when another fails (./deliver-all.ts).
    const delivered = await this.#deliver(t, issued, true);
    if (!delivered) {
      // The old token is still valid and still in use: drop the undeliverable new one.
      const revoked = await this.#revoke(issued.id);
      if (!revoked) this.#remember({ id: issued.id, name: p.name, kind: 'revoke-pending' });
      const restored = this.#rollback.restored;
      return this.#stop(
        'PLUMB_TOKEN_SECRET_NOT_DELIVERED',
        `The secret of the replacement for "${p.name}" (new id ${issued.id}) could not be delivered; the old token was kept`,
        `State now: id ${old.id} (the old token) is active and unchanged; id ${issued.id} ${revoked ? 'was revoked again' : `could not be revoked and is noted in ${this.#ctx.state.file}: the next plan revokes it`}.${restored.length > 0 ? ` The other sinks were restored to what they held before, and read back: ${restored.join(', ')}.` : ''} The next plan replaces "${p.name}" again.`,
        'fix the sink and run `plumb apply` again',
      );
    }
    if (p.self) {
      this.#ctx.client.replaceToken(issued.token);
      this.#notes.push('plumb uses the new secret for the rest of this run');
    }
    this.#forget(old.id);
    const revoked = await this.#revoke(old.id);
    if (revoked) {
      this.#notes.push(revoked === 'revoked' ? `revoked the old token id ${old.id}` : `the old token id ${old.id} was already revoked (outside plumb, or by a concurrent run)`);
      return this.#done();
    }
    this.#remember({ id: old.id, name: p.name, kind: 'revoke-pending' });
    return this.#stop(
      'PLUMB_TOKEN_REVOKE_FAILED',
      `The replacement for "${p.name}" (id ${issued.id}) is delivered, but the old token (id ${old.id}) could not be revoked`,
      `State now: both id ${old.id} and id ${issued.id} are active; consumers have the new secret. plumb noted id ${old.id} in ${this.#ctx.state.file}; the next plan revokes it.`,
      'run `plumb apply` again (or revoke it by hand)',
    );
  }

  /** What an overlap rotation (apply-overlap.ts) uses of this change. */
  #steps(): OverlapSteps {
    return {
      ctx: this.#ctx,
      p: this.#p,
      g: this.#g,
      notes: this.#notes,
      slot: () => this.#slot(),
      updateSlot: (u) => this.#updateSlot(u),
      revokePendingIds: () => this.#revokePendingIds(),
      intend: (op, id) => this.#intend(op, id),
      notIssued: () => this.#notIssued(),
      createProps: () => this.#createProps(),
      record: (c) => this.#record(c),
      list: () => this.#list(),
      deliver: (t, issued) => this.#deliver(t, issued, true),
      rollback: () => this.#rollback,
      revoke: (id) => this.#revoke(id),
      remember: (n) => this.#remember(n),
      unknownOutcome: (s) => this.#unknownOutcome(s),
      done: () => this.#done(),
      fail: (...a) => this.#fail(...a),
      stop: (...a) => this.#stop(...a),
    };
  }

  async #delete(before: GroupAccessToken[]): Promise<ApplyResponse> {
    const p = this.#p;
    const target = before.find((x) => x.id === p.tokenId);
    if (!target || !isActive(target)) {
      this.#forget(p.tokenId!);
      this.#retired(p.tokenId!);
      this.#notes.push(`token id ${p.tokenId} is already ${target ? liveState(target) : 'gone'}; nothing to revoke`);
      return this.#done();
    }
    const revoked = await this.#revoke(target.id);
    if (revoked) {
      this.#forget(target.id);
      this.#retired(target.id);
      this.#notes.push(revoked === 'revoked' ? `revoked id ${target.id}` : `id ${target.id} was already revoked (outside plumb, or by a concurrent run)`);
      return this.#done();
    }
    return this.#fail('PLUMB_TOKEN_REVOKE_FAILED', `Token "${p.name}" (id ${target.id}) could not be revoked; it is still active`, 'run `plumb apply` again');
  }

  /**
   * A rotation is reported as done only once a list made after it shows the new token active: a
   * second rotation of the old token meanwhile (another apply running at the same time) is a reuse,
   * and the instance answers it by revoking the whole token family, the new token included.
   */
  async #confirmRotation(oldId: number, newId: number): Promise<ApplyResponse> {
    let list: GroupAccessToken[];
    try {
      list = await confirmList(this.#ctx, this.#p.group);
      this.#record(() => list);
    } catch (err) {
      this.#notes.push(`could not confirm that id ${newId} is active (${err instanceof Error ? this.#ctx.secrets.redact(err.message) : String(err)}); run \`plumb plan\` to check`);
      return this.#done();
    }
    const now = list.find((x) => x.id === newId);
    if (!now || isActive(now)) {
      this.#notes.push(`confirmed id ${newId} is active`);
      return this.#done();
    }
    return this.#familyRevoked(oldId, newId, `the rotation to id ${newId} succeeded and its secret was delivered, but a list made right after shows id ${newId} ${liveState(now)}`);
  }

  /** The instance revoked the token family: said loudly, with what happened and what to do. */
  #familyRevoked(oldId: number, newId: number | undefined, what: string): ApplyResponse {
    const p = this.#p;
    this.#updateSlot({ unknown: undefined });
    return this.#stop(
      'PLUMB_TOKEN_FAMILY_REVOKED',
      `TOKEN FAMILY REVOKED: the instance revoked every token of the family of "${p.name}" (group "${p.group}"): ${what}`,
      `Rotating a token that is already revoked is a reuse attempt, and the instance answers it by revoking the whole family (id ${oldId}${newId !== undefined ? `, id ${newId}` : ''} and every token rotated from them). This happens when two applies rotate the same token at once (overlapping pipelines, or a laptop during CI), or when the token was rotated outside plumb meanwhile. The secret in the sink of "${p.name}" no longer works, and whatever uses it is locked out now.`,
      'make sure only one `plumb apply` runs at a time for this instance, then run `plumb plan` and `plumb apply`: they create the token anew and deliver a fresh secret to its sink',
    );
  }

  // --- failure analysis -------------------------------------------------------------------------

  /**
   * A create or rotate failed. If the instance may have acted, list the group again and report what
   * it did; never send the request again.
   */
  async #afterFailedIssue(err: unknown, before: GroupAccessToken[], op: 'create' | 'rotate' | 'replace'): Promise<ApplyResponse> {
    const p = this.#p;
    const what = err instanceof Error ? this.#ctx.secrets.redact(err.message) : String(err);
    if (op === 'rotate' && err instanceof ApiError && err.status === 401) {
      // 401 to a rotation of a token plumb just listed as active: it was rotated meanwhile, and this
      // rotation was a reuse that revokes the whole family. A list (a read) says which.
      const now = await this.#list().catch(() => undefined);
      const target = now?.find((x) => x.id === p.tokenId);
      if (now && target && !isActive(target) && !now.some((x) => x.name === p.name && isActive(x))) {
        return this.#familyRevoked(p.tokenId!, undefined, `the rotation of id ${p.tokenId} was refused (${what}) because the token had been rotated meanwhile, and no token named "${p.name}" is active now`);
      }
    }
    if (!issueMayHaveActed(err)) {
      this.#notIssued();
      const suggestion =
        err instanceof ApiError && err.code === 'PLUMB_API_BAD_REQUEST'
          ? 'the instance refused the request (check scopes, access level and the instance\'s maximum token lifetime); fix the configuration and plan again'
          : err instanceof ApiError && (err.status === 401 || err.status === 403)
            ? 'the credential in token_env needs to be an administrator or an Owner of the group'
            : 'plan again';
      return this.#fail(err instanceof ApiError ? err.code : 'PLUMB_INTERNAL', `${op} of "${p.name}" failed: ${what}; the instance did not issue a token`, suggestion);
    }
    let after: GroupAccessToken[];
    try {
      after = await this.#list();
    } catch {
      this.#updateSlot({ unknown: { op, ...(p.tokenId !== undefined && { tokenId: p.tokenId }), at: this.#ctx.now.toISOString() } });
      return this.#unknownOutcome(`${op} of "${p.name}" ended without a clear answer (${what}), and the group could not be listed to find out`);
    }
    const known = new Set(before.map((x) => x.id));
    const appeared = after.filter((x) => !known.has(x.id) && x.name === p.name && isActive(x));
    if (op === 'replace') {
      this.#notIssued(); // what appeared is revoked below, or noted for revocation
      const dropped: number[] = [];
      for (const x of appeared) {
        if (await this.#revoke(x.id)) dropped.push(x.id);
        else this.#remember({ id: x.id, name: p.name, kind: 'revoke-pending' });
      }
      return this.#stop(
        'PLUMB_TOKEN_OUTCOME_UNKNOWN',
        `Creating the replacement for "${p.name}" ended without a clear answer (${what})`,
        `plumb listed the group again and did not repeat the request. State now: the old token id ${p.tokenId} is active and unchanged. ${
          appeared.length === 0
            ? 'No new token was created.'
            : `The instance had created id ${appeared.map((x) => x.id).join(', ')} without plumb receiving the secret; ${dropped.length === appeared.length ? 'it was revoked' : 'it is noted for revocation by the next plan'}.`
        } The next plan replaces "${p.name}" again.`,
        'run `plumb apply` again',
      );
    }
    if (appeared.length > 0) {
      for (const x of appeared) this.#remember({ id: x.id, name: p.name, kind: 'secret-not-received' });
      const ids = appeared.map((x) => x.id).join(', ');
      const oldNow = op === 'rotate' ? after.find((x) => x.id === p.tokenId) : undefined;
      return this.#stop(
        'PLUMB_TOKEN_SECRET_NOT_RECEIVED',
        op === 'rotate'
          ? `Token "${p.name}" was rotated (id ${p.tokenId} → id ${ids}) but the answer was lost (${what})`
          : `Token "${p.name}" was created (id ${ids}) but the answer was lost (${what})`,
        `plumb listed the group again and did not repeat the request. State now: ${oldNow ? `id ${oldNow.id} is ${liveState(oldNow)}; ` : ''}id ${ids} is active and its secret never arrived. plumb noted it in ${this.#ctx.state.file}; the next plan rotates id ${ids} (safe: it is active) and delivers the new secret.`,
        'run `plumb apply` again',
      );
    }
    this.#notIssued();
    const oldNow = op === 'rotate' ? after.find((x) => x.id === p.tokenId) : undefined;
    const state =
      op === 'create'
        ? 'no token was created.'
        : oldNow && isActive(oldNow)
          ? `id ${oldNow.id} is still active: the rotation did not happen.`
          : `id ${p.tokenId} is ${oldNow ? liveState(oldNow) : 'gone'} and no replacement appeared; the next plan creates a new token.`;
    // plumb listed the group: the outcome is known now, so the failure is not told as "unknown".
    const told = err instanceof ApiAmbiguousError ? `${err.method} ${err.path}: ${describeReason(err.reason, err.status)}` : what;
    return this.#stop(
      err instanceof ApiError ? err.code : 'PLUMB_TOKEN_OUTCOME_UNKNOWN',
      `${op} of "${p.name}" failed: ${this.#ctx.secrets.redact(told)}`,
      `plumb listed the group again and did not repeat the request. State now: ${state}`,
      'run `plumb apply` again',
    );
  }

  /** Rotating plumb's own credential failed. Listing with that credential tells whether it still works. */
  async #afterFailedSelfRotate(err: unknown, target: GroupAccessToken): Promise<ApplyResponse> {
    const p = this.#p;
    const what = err instanceof Error ? this.#ctx.secrets.redact(err.message) : String(err);
    if (!issueMayHaveActed(err)) {
      this.#notIssued();
      const notCredential = err instanceof ApiError && (err.status === 405 || err.status === 401 || err.status === 403);
      return this.#fail(
        notCredential ? 'PLUMB_TOKEN_SELF_NOT_CREDENTIAL' : err instanceof ApiError ? err.code : 'PLUMB_INTERNAL',
        `Self-rotation of "${p.name}" was refused: ${what}; nothing was rotated`,
        notCredential
          ? `\`self: true\` means plumb authenticates with this token (${this.#ctx.instance.tokenEnv} holds its secret) and the token has scope api or self_rotate; check both, or remove \`self: true\``
          : 'plan again',
      );
    }
    let now: GroupAccessToken[];
    try {
      now = await this.#list();
    } catch (listErr) {
      // Only a 401 says the old credential is gone; a 5xx or a broken connection says nothing about it.
      this.#updateSlot({ unknown: { op: 'rotate', tokenId: target.id, at: this.#ctx.now.toISOString() } });
      if (!(listErr instanceof ApiError && listErr.status === 401)) {
        return this.#unknownOutcome(
          `Self-rotation of "${p.name}" ended without a clear answer (${what}), and the group could not be listed to find out (${
            listErr instanceof Error ? this.#ctx.secrets.redact(listErr.message) : String(listErr)
          })`,
        );
      }
      return this.#stop(
        'PLUMB_TOKEN_SELF_LOST',
        `plumb's own credential "${p.name}" (id ${target.id}) was probably rotated, but the new secret never arrived (${what})`,
        `Listing the group with the old credential now fails, so it is most likely revoked; the new token's secret is lost and plumb can no longer authenticate. Nothing else was attempted, and the rotation was not repeated (rotating a revoked token revokes its whole family).`,
        `have an administrator or a group Owner rotate "${p.name}" of group "${p.group}", deliver the secret to its sink and set ${this.#ctx.instance.tokenEnv}`,
      );
    }
    const t = now.find((x) => x.id === target.id);
    this.#notIssued();
    return this.#stop(
      err instanceof ApiError ? err.code : 'PLUMB_TOKEN_OUTCOME_UNKNOWN',
      `Self-rotation of "${p.name}" ended without a clear answer (${what})`,
      `plumb's credential still works, so the rotation did not happen (id ${target.id} is ${t ? liveState(t) : 'not listed'}). plumb did not repeat it.`,
      'run `plumb apply` again',
    );
  }

  /** An issue whose outcome plumb could not learn; the slot it noted makes every later plan show it. */
  #unknownOutcome(summary: string): ApplyResponse {
    const file = this.#ctx.state.file;
    return this.#stop(
      'PLUMB_TOKEN_OUTCOME_UNKNOWN',
      summary,
      `plumb did not repeat the request (repeating a rotation revokes the whole token family), and noted the open question in ${file}. Until it is settled, every plan and drift run reports "${this.#p.name}" as drifted (drift exits 2): the first plan that can list the group shows whether a token was issued, and if the active token is not the one whose secret the sink holds, plans a rotation of the active token (safe: it is not revoked) that delivers a fresh secret.`,
      `keep ${file} (it holds the note, never a secret), wait until the instance answers again, then run \`plumb plan\` and \`plumb apply\`; do not rotate or revoke "${this.#p.name}" by hand in the meantime`,
    );
  }

  // --- helpers ------------------------------------------------------------------------------

  #createProps() {
    const c = this.#p.create!;
    return { ...c, scopes: [...c.scopes], access_level: c.access_level as AccessLevel };
  }

  /** A fresh list of the group, after a failure that may have happened on the instance. */
  async #list(): Promise<GroupAccessToken[]> {
    const list = await sharedList(this.#ctx, this.#p.group, { maxAgeMs: 0, fromApply: true });
    this.#record(() => list);
    return list;
  }

  /**
   * The list of the group this change is applied against. In the CLI: the session's, one list per
   * group per apply (sharedList). Under the Terraform provider (`memo.reads`): the walk's list of the
   * group, which holds the provider's own writes, so the applies of a walk list each group once.
   * A rotation lists afresh in both (rotating a token revoked meanwhile revokes its whole family),
   * and the walk's list takes that newer read. Why an older list is safe for the other operations:
   * docs/terraform.md, "Cost: requests and time".
   */
  async #before(): Promise<GroupAccessToken[]> {
    const ctx = this.#ctx;
    const { group, op } = this.#p;
    if (ctx.memo.reads && op !== 'rotate') return ctx.memo.reads.get(tokenListKey(group), () => sharedList(ctx, group, { maxAgeMs: 0 }));
    const list = await sharedList(ctx, group, { fromApply: op === 'rotate' });
    if (op === 'rotate') this.#record(() => list);
    return list;
  }

  /** Records what this change did (or a newer list) in the walk's shared list of the group, if there is one. */
  #record(change: (list: GroupAccessToken[]) => GroupAccessToken[]): void {
    this.#ctx.memo.reads?.update?.(tokenListKey(this.#p.group), change);
  }

  /**
   * Delivers the new secret to every sink (./deliver-all.ts: the order), each confirmed where it can
   * be. Each failed sink is a diagnostic at its line; when some sinks received the secret and others
   * did not, a second one says which. With `rollback` (an overlap rotation), the sinks already
   * written are put back and read back before this returns (`#rollback` says which were and which
   * could not be); the caller then revokes the successor. Returns whether every sink received it.
   */
  async #deliver(t: DesiredAccessToken, issued: NewGroupAccessToken, rollback = false): Promise<boolean> {
    const ctx = this.#ctx;
    const { outcomes, priors } = await deliverToSinks(ctx, t, { group: this.#p.group, name: t.name, id: issued.id, expiresAt: issued.expires_at, token: issued.token }, rollback);
    for (const sink of t.sinks) if (sink.kind === 'ci_variable') forgetVariableList(ctx, sink);
    const failed = outcomes.filter((o) => o.error !== undefined);
    const reached = outcomes.filter((o) => o.receipt !== undefined);
    for (const o of reached) this.#notes.push(o.receipt!.note);
    if (failed.length === 0 && t.sinks.length > 0) {
      const delivered: Record<string, DeliveredVariable> = {};
      for (const o of reached) if (o.sink.kind === 'ci_variable' && o.receipt!.record) delivered[variableSinkId(ctx.instance.name, o.sink)] = o.receipt!.record;
      this.#updateSlot({ held: issued.id, unknown: undefined, revokedByPlumb: undefined, delivered: Object.keys(delivered).length > 0 ? delivered : undefined });
      return true;
    }
    for (const o of failed) {
      this.#diagnostics.push(
        planDiagnostic(ctx, {
          severity: 'error',
          code: 'PLUMB_SINK_FAILED',
          summary: `Delivering the secret of "${t.name}" (id ${issued.id}) to ${describeSink(o.sink)} failed: ${o.error}`,
          address: this.#change.address,
          pointer: o.sink.pointer ?? t.pointer,
        }),
      );
    }
    if (priors) {
      await this.#putBack(t, reached.map((o) => o.sink), priors);
      return false;
    }
    if (reached.length > 0) {
      this.#diagnostics.push(
        planDiagnostic(ctx, {
          severity: 'error',
          code: 'PLUMB_SINK_PARTIAL',
          summary: `The new secret of "${t.name}" (id ${issued.id}) reached ${reached.map((o) => describeSink(o.sink)).join(', ')} but not ${failed.map((o) => describeSink(o.sink)).join(', ')}`,
          detail: 'The sinks that received it hold the new secret; the others hold what they held before.',
          address: this.#change.address,
          pointer: t.pointer,
        }),
      );
    }
    return false;
  }

  /** After an overlap delivery failed: which sinks were put back, and which hold the successor's (revoked) secret. */
  #rollback: { restored: string[]; unrestored: string[] } = { restored: [], unrestored: [] };

  /**
   * Puts back every sink the failed delivery wrote (./sink-restore.ts), each read back. A sink that
   * cannot be put back is an error located at it, and its delivery record is dropped from the
   * slot, so the next plan delivers a fresh secret there (`sink-added`) even where nothing else
   * would tell (a hidden variable's value cannot be compared).
   */
  async #putBack(t: DesiredAccessToken, written: readonly TokenSink[], priors: ReadonlyMap<TokenSink, Prior>): Promise<void> {
    const back = await putBackSinks(this.#ctx, t, written, priors, this.#change.address);
    this.#rollback = back;
    this.#diagnostics.push(...back.diagnostics);
    const recorded = this.#slot()?.delivered;
    if (!recorded || back.dropRecords.size === 0) return;
    const kept = Object.fromEntries(Object.entries(recorded).filter(([id]) => !back.dropRecords.has(id)));
    this.#updateSlot({ delivered: Object.keys(kept).length > 0 ? kept : undefined });
    await this.#ctx.state.saveSoon();
  }

  /**
   * Revokes a token, making sure it ends up revoked. Any refused or unclear answer (a 400 for a token
   * revoked meanwhile, outside plumb or by a concurrent run; a 5xx; a lost connection) is checked
   * with a fresh list: a token the instance no longer holds active is the outcome wanted, and a 400
   * for it means someone else revoked it first (`already-revoked`). Revoking is safe to repeat, but
   * only after the list shows the token still active, and never after a 400 for an active token.
   */
  async #revoke(id: number): Promise<false | 'revoked' | 'already-revoked'> {
    for (let attempt = 1; attempt <= 3; attempt++) {
      let refused = false;
      try {
        await revokeGroupAccessToken(this.#ctx.client, this.#g, id);
        this.#record(withRevoked(id));
        return 'revoked';
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) {
          this.#record(withRevoked(id));
          return attempt === 1 ? 'already-revoked' : 'revoked';
        }
        refused = !issueMayHaveActed(err);
      }
      try {
        const t = (await this.#list()).find((x) => x.id === id);
        if (!t || !isActive(t)) return refused ? 'already-revoked' : 'revoked';
      } catch {
        return false;
      }
      if (refused) return false;
      await this.#ctx.sleep(200 * attempt);
    }
    return false;
  }

  #revokePendingIds(): Set<number> {
    return new Set(tokenState(this.#ctx).tokenNotes(this.#ctx.instance.url).filter((n) => n.kind === 'revoke-pending').map((n) => n.id));
  }

  #remember(n: Omit<TokenNote, 'group' | 'at'>): void {
    const ctx = this.#ctx;
    tokenState(ctx).recordTokenNote(ctx.instance.url, { ...n, group: this.#p.group, at: ctx.now.toISOString() });
    ctx.state.save();
  }

  #slot() {
    return tokenState(this.#ctx).tokenSlot(this.#ctx.instance.url, this.#p.group, this.#p.name);
  }

  /**
   * Records what plumb knows about the token's sink. An open question or a revocation of plumb's own
   * is written at once; the id a sink now holds waits for the end of the apply (one write, not one
   * per token), since losing it costs nothing but a judgement the next plan cannot make.
   */
  #updateSlot(update: Partial<TokenSlot>): void {
    tokenState(this.#ctx).updateTokenSlot(this.#ctx.instance.url, this.#p.group, this.#p.name, update);
    if (update.unknown !== undefined || update.revokedByPlumb !== undefined) this.#ctx.state.save();
    else this.#ctx.state.markDirty();
  }

  /** The slot's open question before this change wrote its own (`#intend`), given back when the issue is known not to have happened. */
  #prior: TokenSlot['unknown'];

  /**
   * Written to the state file before an issue is sent (a write-ahead note): if the process ends
   * before the answer is recorded (a second signal, a kill, a crash), the next plan finds an issue
   * with no known outcome, and a token the instance issued meanwhile is rotated and its secret
   * delivered, never adopted while its secret is lost. Cleared when the secret reached the sink
   * (`#deliver`) or the issue is known not to have happened (`#notIssued`). A state that cannot be
   * written stops the change before anything is sent.
   */
  async #intend(op: 'create' | 'rotate' | 'replace', tokenId?: number): Promise<void> {
    this.#prior = this.#slot()?.unknown;
    tokenState(this.#ctx).updateTokenSlot(this.#ctx.instance.url, this.#p.group, this.#p.name, { unknown: { op, ...(tokenId !== undefined && { tokenId }), at: this.#ctx.now.toISOString() } });
    // One write for every change that notes an issue meanwhile (StateStore.saveSoon).
    await this.#ctx.state.saveSoon();
  }

  /** The issue did not happen (refused before the instance acted, or a fresh list shows nothing issued). */
  #notIssued(): void {
    this.#updateSlot({ unknown: this.#prior });
  }

  /** An overlap's predecessor is revoked: its entry in the slot has served its purpose. */
  #retired(id: number): void {
    const retiring = this.#slot()?.retiring;
    if (!retiring?.some((r) => r.id === id)) return;
    const left = retiring.filter((r) => r.id !== id);
    this.#updateSlot({ retiring: left.length > 0 ? left : undefined });
  }

  #forget(id: number): void {
    if (tokenState(this.#ctx).clearTokenNote(this.#ctx.instance.url, id)) this.#ctx.state.save();
  }

  /** Notes about tokens of this group that are not active any more have served their purpose. */
  #forgetStaleNotes(live: readonly GroupAccessToken[]): void {
    let changed = false;
    for (const t of live) if (!isActive(t) && tokenState(this.#ctx).clearTokenNote(this.#ctx.instance.url, t.id)) changed = true;
    if (changed) this.#ctx.state.save();
  }

  #done(): ApplyResponse {
    return { applied: true, diagnostics: this.#diagnostics, notes: this.#notes };
  }

  #fail(code: DiagnosticCode, summary: string, suggestion?: string, pointer?: string): ApplyResponse {
    return this.#stop(code, summary, undefined, suggestion, pointer);
  }

  #stop(code: DiagnosticCode, summary: string, detail: string | undefined, suggestion?: string, pointer?: string): ApplyResponse {
    this.#diagnostics.push(
      planDiagnostic(this.#ctx, {
        severity: 'error',
        code,
        summary: this.#ctx.secrets.redact(summary),
        ...(detail !== undefined && { detail: this.#ctx.secrets.redact(detail) }),
        ...(suggestion !== undefined && { suggestion }),
        address: this.#change.address,
        pointer: pointer ?? this.#change.pointer,
      }),
    );
    return { applied: false, diagnostics: this.#diagnostics, notes: this.#notes };
  }
}
