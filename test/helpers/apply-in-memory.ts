/**
 * Plans in-process, lets a test edit the plan in memory (its changes' ordering), applies that plan
 * and renders the report as `plumb apply` does. For tests of the apply scheduler: a saved plan file
 * edited so is refused (test/security/saved-plan.test.ts), an in-memory plan is the engine's input.
 */
import path from 'node:path';
import { loadConfiguration } from '../../src/commands/config-source.js';
import { reconcileView } from '../../src/commands/views/reconcile.js';
import { applyPlan, makePlan } from '../../src/engine/engine.js';
import type { ResourceChange } from '../../src/engine/plan.js';
import { BUILT_IN_CONFIG_KINDS, BUILT_IN_KINDS } from './kinds.js';

export interface InMemoryApply {
  /** The configuration's directory (plumb.yaml in it); the state file is `.plumb/state.json` under it. */
  readonly dir: string;
  readonly env: Record<string, string>;
  /** YYYY-MM-DD (noon UTC). */
  readonly today: string;
  readonly concurrency?: number;
  /** Edits the planned changes (copies) before apply. */
  readonly edit: (changes: ResourceChange[]) => void;
  /** Called between plan and apply (reset the emulator's request log). */
  readonly beforeApply?: () => void;
}

export async function applyInMemory(o: InMemoryApply): Promise<{ code: number; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', ...o.env };
  const loaded = await loadConfiguration([], undefined, { env, cwd: o.dir, today: o.today, kinds: BUILT_IN_CONFIG_KINDS });
  const opts = {
    kinds: BUILT_IN_KINDS.engine,
    env,
    now: new Date(`${o.today}T12:00:00Z`),
    stateFile: path.join(o.dir, '.plumb/state.json'),
    log: () => {},
    stdout: () => {},
    ...(o.concurrency !== undefined && { concurrency: o.concurrency }),
  };
  const plan = await makePlan(loaded, loaded.config!, opts);
  const changes = plan.changes.map((c) => ({ ...c }));
  o.edit(changes);
  o.beforeApply?.();
  const report = await applyPlan({ ...plan, changes }, loaded, loaded.config!, { ...opts, fromFile: false });
  let stderr = '';
  const io = { stdout: (x: string) => (stderr += x), stderr: (x: string) => (stderr += x), isTTY: false, env, cwd: o.dir };
  return { code: reconcileView(false, io, (x) => x, BUILT_IN_KINDS.reasonText).applyReport(report), stderr };
}
