/**
 * Plans for tests: a small hand-made settings plan (for show and the plan-file parser, which need
 * no instance), and the saved plan of a work directory with a lookup of its changes (for tests that
 * edit a saved plan the way an attacker would).
 */
import { expect } from 'vitest';
import { PLAN_FORMAT_VERSION, summarize } from '../../src/engine/plan.js';
import type { Plan, ResourceChange } from '../../src/engine/plan.js';
import type { Workdir } from './cli.js';

/** One settings update of instance `prod`. */
export const SETTINGS_CHANGE: ResourceChange = {
  address: 'prod.application_settings',
  instance: 'prod',
  kind: 'application_settings',
  action: 'update',
  reasons: ['field-changed'],
  attributes: [{ name: 'signup_enabled', before: true, after: false }],
  payload: { set: { signup_enabled: false }, secrets: {} },
  liveFingerprint: 'sha256:0',
};

/** A plan of `changes` for instance `local` at 127.0.0.1, for the renderers (which read no instance). */
export function planOf(changes: ResourceChange[]): Plan {
  return settingsPlan({ plumbVersion: '0.0.0', createdAt: '2026-01-01T00:00:00.000Z', today: '2026-01-01', instances: [{ name: 'local', url: 'http://127.0.0.1' }], changes, summary: summarize(changes) });
}

/** A valid plan of SETTINGS_CHANGE for an instance nothing listens on (`extra` overrides fields). */
export function settingsPlan(extra: Partial<Plan> = {}): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    plumbVersion: '0.1.0',
    createdAt: '2026-06-01T10:00:00.000Z',
    today: '2026-06-01',
    configFingerprint: 'sha256:x',
    // An address nothing listens on: a connection attempt fails (and a preload can log it).
    instances: [{ name: 'prod', url: 'https://code.example.invalid' }],
    changes: [SETTINGS_CHANGE],
    drift: [],
    risks: [],
    diagnostics: [],
    summary: summarize([SETTINGS_CHANGE]),
    applicable: true,
    ...extra,
  };
}

/** A plan file as JSON, to edit freely. */
export type PlanJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** `plumb plan --out plan.json --state state.json` in `wd`, parsed. */
export async function savePlan(wd: Workdir): Promise<PlanJson> {
  const r = await wd.run(['plan', '--out', 'plan.json', '--state', 'state.json']);
  if (r.code !== 0) throw new Error(`plan failed: ${r.stderr}${r.stdout}`);
  return JSON.parse(wd.read('plan.json')) as PlanJson;
}

/** The one change of `plan` whose address matches. */
export function changeOf(plan: PlanJson, address: RegExp): PlanJson {
  const c = (plan.changes as PlanJson[]).find((x) => address.test(x.address));
  expect(c, `a change matching ${address}`).toBeDefined();
  return c!;
}
