/**
 * Deterministic fault injection: latency, canned statuses and dropped connections, selected by
 * method, path (exact, glob or RegExp), the nth matching request, a count, and a seeded probability.
 */
import type { FaultAction, FaultRule } from './types.js';

/** mulberry32: a small, fast, seedable PRNG returning [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `*` matches within one path segment, `**` across segments; everything else is literal. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        out += '.*';
        i++;
      } else out += '[^/]*';
    } else out += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

interface ActiveRule {
  readonly rule: FaultRule;
  readonly pattern?: RegExp;
  seen: number;
  applied: number;
}

export interface FaultDecision {
  /** Total latency to add before anything else. */
  readonly latencyMs: number;
  /** The first status/drop action that applies, if any. */
  readonly action?: Exclude<FaultAction, { kind: 'latency' }>;
}

export class FaultInjector {
  private rules: ActiveRule[] = [];
  private readonly random: () => number;

  constructor(rules: readonly FaultRule[] = [], seed = 1) {
    this.random = mulberry32(seed);
    for (const r of rules) this.add(r);
  }

  add(rule: FaultRule): void {
    validateRule(rule);
    const pattern = rule.path === undefined ? undefined : typeof rule.path === 'string' ? globToRegExp(rule.path) : rule.path;
    this.rules.push({ rule, ...(pattern ? { pattern } : {}), seen: 0, applied: 0 });
  }

  clear(): void {
    this.rules = [];
  }

  /** Decides the faults of one request (`path` after /api/v4, raw and decoded). */
  decide(method: string, rawPath: string, decodedPath: string): FaultDecision {
    let latencyMs = 0;
    let action: FaultDecision['action'];
    for (const active of this.rules) {
      const { rule } = active;
      if (rule.method && rule.method.toUpperCase() !== method.toUpperCase()) continue;
      if (active.pattern) {
        active.pattern.lastIndex = 0;
        const hit = active.pattern.test(rawPath) || ((active.pattern.lastIndex = 0), active.pattern.test(decodedPath));
        if (!hit) continue;
      }
      active.seen++;
      // One status/drop per request: a later terminal rule sees the request but does not fire.
      if (rule.action.kind !== 'latency' && action) continue;
      if (rule.nth !== undefined && active.seen < rule.nth) continue;
      const times = rule.times ?? (rule.nth !== undefined ? 1 : Infinity);
      if (active.applied >= times) continue;
      if (rule.probability !== undefined && this.random() >= rule.probability) continue;
      active.applied++;
      if (rule.action.kind === 'latency') latencyMs += rule.action.ms;
      else action = rule.action;
    }
    return action ? { latencyMs, action } : { latencyMs };
  }
}

function validateRule(rule: FaultRule): void {
  const a = rule.action as FaultAction | undefined;
  if (!a || !['latency', 'status', 'drop'].includes(a.kind)) throw new TypeError('fault rule: action.kind must be latency, status or drop');
  if (a.kind === 'latency' && !(a.ms >= 0)) throw new TypeError('fault rule: latency ms must be >= 0');
  if (a.kind === 'status' && !(Number.isInteger(a.status) && a.status >= 100 && a.status <= 599)) {
    throw new TypeError('fault rule: status must be an HTTP status code');
  }
  if (a.kind === 'drop' && a.when !== 'before' && a.when !== 'after') throw new TypeError("fault rule: drop.when must be 'before' or 'after'");
  if (rule.nth !== undefined && !(Number.isInteger(rule.nth) && rule.nth >= 1)) throw new TypeError('fault rule: nth must be an integer >= 1');
  if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 0)) throw new TypeError('fault rule: times must be an integer >= 0');
  if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) {
    throw new TypeError('fault rule: probability must be within 0..1');
  }
}
