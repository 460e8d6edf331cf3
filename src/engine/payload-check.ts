/**
 * The kinds' part of parsing a plan file: each change's payload through its kind's parser. Kept out
 * of engine.ts so `plumb show` parses a plan without loading the HTTP client.
 */
import { canonical } from '../util/canonical.js';
import type { Plan, ResourceChange } from './plan.js';
import type { KindRegistry, PayloadMeaning } from './resource.js';
import { providerFor } from './resource.js';
import { PayloadError } from './payload.js';

/**
 * Checks each change's payload of a plan read from a file with its kind's parser (the generic
 * shape was checked by `checkPlanFile`); returns a sentence naming the first bad change.
 */
export function checkPlanPayloads(plan: Plan, kinds: KindRegistry): string | undefined {
  for (const [i, change] of plan.changes.entries()) {
    const provider = providerFor(kinds, change.kind);
    if (!provider) return `change ${i + 1} (${change.address}) is of kind ${JSON.stringify(change.kind)}, which this plumb does not apply`;
    try {
      provider.parsePayload(change.payload);
    } catch (err) {
      if (!(err instanceof PayloadError)) throw err;
      return `change ${i + 1} (${change.address}) has a malformed payload: ${err.message}; make a new plan`;
    }
  }
  return undefined;
}


const same = (a: unknown, b: unknown): boolean => JSON.stringify(canonical(a) ?? null) === JSON.stringify(canonical(b) ?? null);
const shown = (v: unknown): string => (v === undefined ? 'nothing' : JSON.stringify(v));

/**
 * `plumb show` and `plumb comment` render a saved plan offline, from its attributes: each change's
 * attributes must say what its payload (what apply sends) means, as its kind describes it
 * (`describePayload`). Returns the first disagreement, naming the change and the attribute; the
 * payloads were checked by `checkPlanPayloads` first.
 */
export function checkPlanMeaning(plan: Plan, kinds: KindRegistry): { address: string; problem: string } | undefined {
  for (const change of plan.changes) {
    const provider = providerFor(kinds, change.kind);
    if (!provider?.describePayload) continue;
    let meaning;
    try {
      meaning = provider.describePayload(change.instance, provider.parsePayload(change.payload));
    } catch (err) {
      if (!(err instanceof PayloadError)) throw err;
      return { address: change.address, problem: `its payload contradicts itself: ${err.message}` };
    }
    const problem = disagreement(change, meaning);
    if (problem) return { address: change.address, problem };
  }
  return undefined;
}

function disagreement(change: ResourceChange, m: PayloadMeaning): string | undefined {
  if (!m.addresses.includes(change.address)) return `its payload acts on ${m.addresses[0]}`;
  if (change.action !== m.action) return `its payload is a${/^[aeiou]/.test(m.action) ? 'n' : ''} ${m.action}, the change says ${change.action}`;
  const described = new Map(m.attributes.map((a) => [a.name, a]));
  const cosmetic = new Set(m.cosmetic ?? []);
  for (const a of change.attributes) {
    const d = described.get(a.name);
    if (!d) {
      if (!cosmetic.has(a.name)) return `it shows attribute "${a.name}", which its payload does not send`;
      continue;
    }
    if ('after' in d && !same(a.after, d.after)) return `it shows ${a.name} = ${shown(a.after)}, its payload sends ${shown(d.after)}`;
    if ('before' in d && !same(a.before, d.before)) return `it shows ${a.name} was ${shown(a.before)}, its payload acts on ${shown(d.before)}`;
    if ((d.sensitive ?? false) !== (a.sensitive ?? false)) return `it shows ${a.name} as ${a.sensitive ? '' : 'not '}sensitive`;
  }
  for (const d of m.attributes) {
    if (d.required && !change.attributes.some((a) => a.name === d.name)) return `it does not show ${d.name}, which its payload sends (${shown(d.after)})`;
  }
  return undefined;
}
