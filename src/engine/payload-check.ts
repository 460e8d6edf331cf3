/**
 * The kinds' part of parsing a plan file: each change's payload through its kind's parser. Kept out
 * of engine.ts so `plumb show` parses a plan without loading the HTTP client.
 */
import type { Plan } from './plan.js';
import type { KindRegistry } from './resource.js';
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

