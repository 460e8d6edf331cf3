/**
 * Applying a rotation with an overlap window (docs/tokens.md#overlap-window): the successor is
 * created (never the `rotate` call), delivered to every sink, and only then the predecessor's
 * revocation recorded as due; a lost create answer is settled by revoking the orphan and creating
 * again. A delivery that fails puts back every sink already written (./sink-restore.ts) before
 * the successor is revoked. The steps it shares with every token change (write-ahead note,
 * delivery, revocation, the report) are the change's own (apply.ts, `OverlapSteps`).
 */
import { createGroupAccessToken } from '../../api/group-access-tokens.js';
import type { GroupAccessToken, NewGroupAccessToken } from '../../api/group-access-tokens.js';
import { ApiError } from '../../api/errors.js';
import type { PathParam } from '../../api/path.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import type { ApplyResponse, InstanceContext } from '../../engine/resource.js';
import type { DesiredAccessToken } from './model.js';
import type { TokenPayload } from './payload.js';
import type { TokenNote, TokenSlot } from './state.js';
import { isActive, liveState, overlapText, revokeDueAt } from './identity.js';
import { issueMayHaveActed, withIssued } from './apply-steps.js';

/** What an overlap rotation uses of the token change it is (apply.ts, `TokenApply`). */
export interface OverlapSteps {
  readonly ctx: InstanceContext;
  readonly p: TokenPayload;
  readonly g: PathParam;
  readonly notes: string[];
  slot(): TokenSlot | undefined;
  updateSlot(update: Partial<TokenSlot>): void;
  revokePendingIds(): Set<number>;
  intend(op: 'create' | 'rotate' | 'replace', tokenId?: number): Promise<void>;
  notIssued(): void;
  createProps(): Parameters<typeof createGroupAccessToken>[2];
  record(change: (list: GroupAccessToken[]) => GroupAccessToken[]): void;
  list(): Promise<GroupAccessToken[]>;
  /** Delivers to every sink; after a failure, the sinks already written are put back (`rollback`). */
  deliver(t: DesiredAccessToken, issued: NewGroupAccessToken): Promise<boolean>;
  /** After a failed `deliver`: the sinks put back (read back), and those that hold the successor's secret. */
  rollback(): { readonly restored: readonly string[]; readonly unrestored: readonly string[] };
  revoke(id: number): Promise<false | 'revoked' | 'already-revoked'>;
  remember(n: Omit<TokenNote, 'group' | 'at'>): void;
  unknownOutcome(summary: string): ApplyResponse;
  done(): ApplyResponse;
  fail(code: DiagnosticCode, summary: string, suggestion?: string, pointer?: string): ApplyResponse;
  stop(code: DiagnosticCode, summary: string, detail: string | undefined, suggestion?: string, pointer?: string): ApplyResponse;
}

/**
 * A rotation with an overlap window (docs/tokens.md#overlap-window): the successor is created
 * (never the `rotate` call, which revokes the predecessor at once), delivered to every sink, and
 * only then the predecessor's revocation is recorded as due `overlapHours` from now. A successor
 * that cannot be delivered is revoked again: the predecessor, untouched, still works everywhere.
 */
export async function applyOverlap(a: OverlapSteps, t: DesiredAccessToken, before: GroupAccessToken[]): Promise<ApplyResponse> {
  const p = a.p;
  const old = before.find((x) => x.id === p.tokenId);
  if (!old || !isActive(old)) {
    return a.fail('PLUMB_PLAN_STALE', `Token "${p.name}" (id ${p.tokenId}) is ${old ? liveState(old) : 'gone'} now; no successor was created`, 'run `plumb plan` again');
  }
  const retiring = new Set((a.slot()?.retiring ?? []).map((r) => r.id));
  const pending = a.revokePendingIds();
  const others = before.filter((x) => x.name === p.name && isActive(x) && x.id !== old.id && !retiring.has(x.id) && !pending.has(x.id));
  if (others.length > 0) {
    return a.fail(
      'PLUMB_PLAN_STALE',
      `Another active token named "${p.name}" exists now (id ${others.map((x) => x.id).join(', ')}); it appeared after the plan was made`,
      'run `plumb plan` again; no successor was created',
    );
  }
  // Written ahead as a replacement's: if plumb ends before the successor is delivered, the next
  // plan revokes the second active token nobody holds and keeps the predecessor.
  await a.intend('replace', old.id);
  const issued = await issueSuccessor(a, before, old, retiring);
  if (!('token' in issued)) return issued;
  a.ctx.secrets.add(issued.token);
  a.record(withIssued(issued));
  a.notes.push(`created successor id ${issued.id} (expires ${issued.expires_at ?? 'never'})`);
  const delivered = await a.deliver(t, issued);
  if (!delivered) {
    // Every sink already written was put back (a.rollback()); nothing depends on the successor now:
    // revoke it, and the predecessor stays what the sinks hold.
    const { restored, unrestored } = a.rollback();
    const revoked = await a.revoke(issued.id);
    if (revoked) a.notIssued();
    else a.remember({ id: issued.id, name: p.name, kind: 'revoke-pending' });
    const back = restored.length > 0 ? ` The other sinks were restored to what they held before, and read back: ${restored.join(', ')}.` : '';
    const lost = unrestored.length > 0 ? ` ${unrestored.join(', ')} ${unrestored.length === 1 ? 'holds' : 'hold'} a revoked secret: the next apply delivers a fresh one.` : '';
    return a.stop(
      'PLUMB_TOKEN_SECRET_NOT_DELIVERED',
      `The secret of the successor of "${p.name}" (id ${issued.id}) could not be delivered; ${revoked ? 'the successor was revoked again' : 'revoking the successor failed'}`,
      `State now: id ${old.id} (the predecessor) is active and unchanged, and its secret still works wherever it was delivered; id ${issued.id} ${revoked ? 'is revoked' : `could not be revoked and is noted in ${a.ctx.state.file}: the next plan revokes it`}.${back}${lost} The next plan rotates "${p.name}" again.`,
      'fix the sink named above and run `plumb apply` again',
    );
  }
  const due = revokeDueAt(a.ctx.now, p.overlapHours!);
  const kept = (a.slot()?.retiring ?? []).filter((r) => r.id !== old.id);
  a.updateSlot({ retiring: [...kept, { id: old.id, due }] });
  // Two active tokens of one name are told apart by this entry alone: written before apply goes on.
  await a.ctx.state.saveSoon();
  a.notes.push(`id ${old.id} stays active for the overlap (${overlapText(p.overlapHours!)}); its revocation is due on ${due.slice(0, 16).replace('T', ' ')} UTC (the first apply after it revokes it)`);
  return a.done();
}

/**
 * Creates an overlap rotation's successor. A create is safe to repeat (unlike a rotation): after
 * an answer that may be lost, the group is listed again; a token of the name that the list made
 * before the create did not show (so: created after the request began), neither the predecessor
 * nor a retiring one, is an orphan whose secret nobody holds: it is revoked and the create sent
 * again (at most three creates in all). Returns the successor, or the change's failed response.
 */
async function issueSuccessor(a: OverlapSteps, before: readonly GroupAccessToken[], old: GroupAccessToken, retiring: ReadonlySet<number>): Promise<NewGroupAccessToken | ApplyResponse> {
  const p = a.p;
  const known = new Set(before.map((x) => x.id));
  for (let attempt = 1; ; attempt++) {
    try {
      return await createGroupAccessToken(a.ctx.client, a.g, a.createProps());
    } catch (err) {
      const what = err instanceof Error ? a.ctx.secrets.redact(err.message) : String(err);
      if (!issueMayHaveActed(err)) {
        a.notIssued();
        return a.fail(err instanceof ApiError ? err.code : 'PLUMB_INTERNAL', `Creating the successor of "${p.name}" failed: ${what}; the instance did not issue a token`, `id ${old.id} is active and unchanged; fix the cause and run \`plumb apply\` again`);
      }
      let after: GroupAccessToken[];
      try {
        after = await a.list();
      } catch {
        a.updateSlot({ unknown: { op: 'replace', tokenId: old.id, at: a.ctx.now.toISOString() } });
        return a.unknownOutcome(`Creating the successor of "${p.name}" ended without a clear answer (${what}), and the group could not be listed to find out`);
      }
      const orphans = after.filter((x) => x.name === p.name && isActive(x) && !known.has(x.id) && x.id !== old.id && !retiring.has(x.id));
      for (const o of orphans) {
        known.add(o.id);
        if (!(await a.revoke(o.id))) {
          a.remember({ id: o.id, name: p.name, kind: 'revoke-pending' });
          a.notIssued();
          return a.stop(
            'PLUMB_TOKEN_OUTCOME_UNKNOWN',
            `Creating the successor of "${p.name}" lost its answer (${what}); the instance had created id ${o.id}, whose secret nobody holds, and revoking it failed`,
            `State now: id ${old.id} (the predecessor) is active and unchanged; id ${o.id} is noted in ${a.ctx.state.file} and the next plan revokes it. No other create was sent.`,
            'run `plumb apply` again',
          );
        }
      }
      a.notes.push(
        orphans.length > 0
          ? `the answer to the successor's create was lost (${what}); the instance had created id ${orphans.map((o) => o.id).join(', ')}, whose secret nobody holds: revoked, and the create sent again`
          : `the successor's create failed (${what}) and the list shows it did not happen; the create was sent again`,
      );
      if (attempt >= 3) {
        a.notIssued();
        return a.stop(
          err instanceof ApiError ? err.code : 'PLUMB_TOKEN_OUTCOME_UNKNOWN',
          `Creating the successor of "${p.name}" failed ${attempt} times (last: ${what})`,
          `State now: id ${old.id} (the predecessor) is active and unchanged; no successor is active.`,
          'run `plumb apply` again',
        );
      }
    }
  }
}
