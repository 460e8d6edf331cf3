/**
 * Stage 6 of loading a configuration: **checks**. With the desired state resolved (./resolve.ts):
 * each kind's checks across instances (two tokens writing one file, …); the warning for a
 * configuration that declares nothing; what the loader already reported stays reported once
 * (`LoadedSources.reported`); a problem at a shared default is reported once, and one at a value
 * that overrides a default names it. The result: the desired state when nothing is an error.
 */
import type { Diagnostic } from '../../diagnostics/index.js';
import { hasErrors } from '../../diagnostics/index.js';
import { at, protectedFiles, push } from '../resolve-context.js';
import type { Ctx } from '../resolve-context.js';
import type { InstanceClaim, KindConfig } from '../kinds.js';
import { splitPointer } from '../pointer.js';
import type { LoadedSources } from '../load.js';
import type { DesiredConfig } from '../model.js';
import type { ConfigResult } from '../validate.js';

/** `fromLoader`: how many of `ctx.diagnostics` came before the schema stage (they are never filtered). */
export function checkConfig(config: DesiredConfig, kinds: readonly KindConfig[], ctx: Ctx, fromLoader: number): ConfigResult {
  const { sources, diagnostics } = ctx;
  for (const k of kinds) k.check?.(config.instances, ctx);
  checkClaims(config, kinds, ctx);
  if (config.instances.length === 0 && !hasErrors(diagnostics)) {
    diagnostics.push({
      severity: 'warning',
      code: 'PLUMB_NOTHING_DECLARED',
      summary: 'The configuration declares no instance',
      suggestion: 'add an `instances:` mapping (see docs/config.md)',
    });
  }
  // What the loader reported (an unusable number, an empty interpolation…) is reported once.
  const later = diagnostics.splice(fromLoader).filter((d) => d.pointer === undefined || !(sources.reported.covers(d.pointer) || sources.reported.covers(sources.locations.written(d.pointer))));
  diagnostics.push(...later);
  if (sources.defaults.size > 0) diagnostics.splice(0, diagnostics.length, ...withDefaultsOrigins(diagnostics, sources));
  if (hasErrors(diagnostics)) return { diagnostics, sources };
  return { config, diagnostics, sources, protectedFiles: protectedFiles(ctx) };
}

/**
 * One thing on an instance written by two kinds (a CI/CD variable declared under `variables:` and
 * as a token's `ci_variable` sink): each apply would overwrite what the other wrote. Located at the
 * second declaration, naming the first.
 */
function checkClaims(config: DesiredConfig, kinds: readonly KindConfig[], ctx: Ctx): void {
  const first = new Map<string, { kind: string; claim: InstanceClaim }>();
  // The instances share one map (resolve.ts): what is claimed, by which kind.
  const claimed = config.instances[0]?.claims as Map<string, string> | undefined;
  for (const k of kinds) {
    if (!k.claims) continue;
    for (const instance of config.instances) {
      for (const c of k.claims(instance)) {
        const earlier = first.get(c.id);
        if (!earlier) {
          first.set(c.id, { kind: k.kind, claim: c });
          claimed?.set(c.id, k.kind);
          continue;
        }
        if (earlier.kind === k.kind) continue;
        push(ctx, {
          severity: 'error',
          code: 'PLUMB_CLAIMED_TWICE',
          summary: `${c.what} is declared twice: as ${c.as} and as ${earlier.claim.as}`,
          detail: 'plumb would write it from both declarations, each apply overwriting what the other wrote.',
          suggestion: `keep one: remove ${c.as}, or ${earlier.claim.as}`,
          pointer: c.pointer,
          related: [{ message: `also declared as ${earlier.claim.as} here`, ...(at(ctx, earlier.claim.pointer) && { location: at(ctx, earlier.claim.pointer)! }) }],
        });
      }
    }
  }
}

/**
 * With `defaults:`: a value every instance inherits is one place in the files, so a problem with it
 * is reported once (at the default), not once per instance; a problem with an instance's value that
 * overrides a default names the default too (`related`), so both places are in the message.
 */
function withDefaultsOrigins(diagnostics: readonly Diagnostic[], sources: LoadedSources): Diagnostic[] {
  const seen = new Map<string, number>();
  const out: Diagnostic[] = [];
  for (const d of diagnostics) {
    if (d.pointer === undefined) {
      out.push(d);
      continue;
    }
    const written = sources.locations.written(d.pointer);
    // (A value a selector gave a project is aliased too: config/selectors.ts reports those.)
    if (written !== d.pointer && written.startsWith('/defaults/')) {
      const key = `${d.code}\0${written}`;
      const first = seen.get(key);
      const instance = splitPointer(d.pointer)[1] ?? '';
      if (first === undefined) {
        seen.set(key, out.length);
        out.push({ ...d, related: [...(d.related ?? []), { message: `declared in defaults; instance "${instance}" inherits it` }] });
      } else {
        // Two problems of one instance at one default (a selector's fixed sink, and the same file across instances): one note.
        const kept = out[first]!;
        if (!(kept.related ?? []).some((r) => r.message.includes(`instance "${instance}" inherits it`))) {
          out[first] = { ...kept, related: [...(kept.related ?? []), { message: `instance "${instance}" inherits it too` }] };
        }
      }
      continue;
    }
    const over = sources.defaults.overrideOver(d.pointer);
    if (!over) {
      out.push(d);
      continue;
    }
    const at = sources.locations.get(over.defaults);
    out.push({ ...d, related: [...(d.related ?? []), { message: 'this overrides the value in defaults declared here', location: at?.key ?? at?.value }] });
  }
  return out;
}

