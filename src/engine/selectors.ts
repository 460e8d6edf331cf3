/**
 * Expanding the configuration's selectors at plan, apply and drift (docs/config.md#selectors):
 * each selected instance's selectors are listed through api/discovery.ts (the group's own lists,
 * never the whole instance, every list of the run at once through the client's concurrency limit),
 * config/selectors.ts expands them into entries, and the expanded configuration is validated again
 * whole, so every check a written entry gets applies to each match. A problem of a selector's body
 * is reported once, at the selector's line, naming the matches it concerns.
 */
import path from 'node:path';
import { listDescendantGroups, listGroupProjects, listSubgroups } from '../api/discovery.js';
import { ApiError } from '../api/errors.js';
import type { Diagnostic } from '../diagnostics/index.js';
import { hasErrors } from '../diagnostics/index.js';
import { expandSelectors } from '../config/selectors.js';
import type { ListedProject, Selector, SelectorMatch, SelectorOrigins } from '../config/selectors.js';
import type { BlockedMatch, LoadedSources } from '../config/load.js';
import { splitPointer } from '../config/pointer.js';
import { validateLoaded } from '../config/validate.js';
import type { ConfigResult, ValidateOptions } from '../config/validate.js';
import { wholeKeys } from '../config/kinds.js';
import { apiSuggestion, openSession } from './engine.js';
import { moreMatchesNote, selectorMatchNote } from './resource.js';
import { targetSet } from './targets.js';
import type { TargetSet } from './targets.js';
import type { EngineOptions } from './engine.js';

/** `loaded` with its selectors expanded for the instances this run works on; `loaded` itself when it has none. */
export async function expandConfiguration(loaded: ConfigResult, opts: EngineOptions, validate: ValidateOptions): Promise<ConfigResult> {
  const selectors = loaded.sources.selectors;
  if (!selectors || selectors.size === 0 || !loaded.config) return loaded;
  const session = openSession(loaded, loaded.config, opts);
  const matches = new Map<Selector, SelectorMatch[]>();
  const listed = new Map<string, Map<string, ListedProject>>();
  const problems: Diagnostic[] = [];
  const locate = (pointer: string) => {
    const l = loaded.sources.locations.get(pointer);
    return l?.key ?? l?.value;
  };
  try {
    await Promise.all(
      selectors.list.map(async (s) => {
        const ctx = session.contexts.get(s.instance);
        if (!ctx) return; // not selected, or the session says why (the plan reports it)
        if (!mayTarget(ctx.targets, s)) return; // no --target can select a match: not listed, not expanded
        try {
          let found: SelectorMatch[];
          if (s.container === 'projects') {
            const projects = await listGroupProjects(ctx.client, s.base, { includeSubgroups: s.depth === 'all', archived: s.includeArchived ? 'include' : 'exclude' });
            const known = listed.get(s.instance) ?? new Map<string, ListedProject>();
            listed.set(s.instance, known);
            for (const p of projects) known.set(p.path_with_namespace, p.default_branch === undefined ? {} : { defaultBranch: p.default_branch });
            found = projects.map((p) => ({ path: p.path_with_namespace }));
          } else {
            found = (await (s.depth === 'all' ? listDescendantGroups : listSubgroups)(ctx.client, s.base)).map((g) => ({ path: g.full_path }));
          }
          matches.set(s, found);
        } catch (err) {
          const api = err instanceof ApiError ? err : undefined;
          problems.push({
            severity: 'error',
            code: api?.code ?? 'PLUMB_INTERNAL',
            summary: loaded.sources.secrets.redact(`Cannot list the ${s.container} of selector "${s.key}" of instance "${s.instance}" (${ctx.instance.url}): ${err instanceof Error ? err.message : String(err)}`),
            ...(api?.detail !== undefined && { detail: api.detail }),
            suggestion: api?.status === 404 ? `check that group "${s.base}" exists and that the token can see it` : `${api ? (apiSuggestion(api.code, ctx.instance) ?? 'check the instance and the token') : 'check the instance and the token'}; nothing was planned`,
            pointer: s.pointer,
            location: locate(s.pointer),
          });
        }
      }),
    );
  } finally {
    await session.close();
  }
  if (problems.length > 0) return { diagnostics: [...loaded.diagnostics, ...problems], sources: loaded.sources };
  const cwd = validate.cwd ?? process.cwd();
  const files = new Map(loaded.sources.files.map((f) => [f, path.resolve(cwd, f)]));
  const expand = (found: ReadonlyMap<Selector, SelectorMatch[]>) => {
    const exp = expandSelectors(loaded.sources.data, selectors, found, loaded.sources.locations, loaded.sources.secrets, wholeKeys(validate.kinds.configs));
    const sources: LoadedSources = { ...loaded.sources, data: exp.data, expansion: { origins: exp.origins, counts: exp.counts, listed } };
    return { exp, sources, result: validateLoaded(sources, files, [], validate) };
  };
  let { exp, sources, result } = expand(matches);
  // Errors that concern one match of a selector's body alone (a `source:` its {project} names does
  // not exist for a new project) block that match only: it is left out and planned no further, the
  // plan reports it (docs/plans.md#blocked-matches), and everything else is checked again without it.
  const confined = hasErrors(exp.diagnostics) ? undefined : errorsByMatch(result.diagnostics, loaded, exp.origins);
  if (confined) {
    const key = (instance: string, container: string, match: string) => JSON.stringify([instance, container, match]);
    const kept = new Map([...matches].map(([s, list]) => [s, list.filter((m) => !confined.has(key(s.instance, s.container, m.path)))]));
    const again = expand(kept);
    if (!hasErrors(again.result.diagnostics) && !hasErrors(again.exp.diagnostics)) {
      // The counts stay what the selectors matched: a blocked match is matched, not gone.
      const counts = again.exp.counts.map((c) => {
        const left = (matches.get(c.selector) ?? []).map((m) => m.path).filter((p) => confined.has(key(c.selector.instance, c.selector.container, p)));
        return { ...c, matched: c.matched + left.length, paths: [...c.paths, ...left] };
      });
      ({ exp, result } = again);
      sources = { ...again.sources, expansion: { origins: again.exp.origins, counts, listed, blocked: [...confined.values()] } };
      result = { ...result, sources };
    }
  }
  const diagnostics = [...oncePerSelector(result.diagnostics, loaded, exp.origins), ...exp.diagnostics];
  if (hasErrors(diagnostics)) return { diagnostics, sources };
  return { ...result, diagnostics };
}

/**
 * The errors of the expanded configuration's checks by the selector match each concerns, when every
 * error concerns one match of a selector's body (not an explicit entry, not the selector itself);
 * undefined when any error concerns anything else (the configuration is then invalid as a whole).
 */
function errorsByMatch(diagnostics: readonly Diagnostic[], loaded: ConfigResult, origins: SelectorOrigins): Map<string, BlockedMatch> | undefined {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return undefined;
  const locations = loaded.sources.locations;
  const out = new Map<string, BlockedMatch>();
  for (const d of errors) {
    // A problem between two declarations (a sink two matches share, two selectors giving one unit)
    // points at the other one: it is the configuration's, not one match's.
    if ((d.related ?? []).some((r) => r.location !== undefined)) return undefined;
    const s = d.pointer === undefined ? undefined : origins.selectorOf(d.pointer);
    if (!s || d.pointer === undefined) return undefined;
    const written = locations.written(d.pointer);
    const at = locations.written(s.pointer);
    if (written === d.pointer || (written !== at && !written.startsWith(at + '/'))) return undefined; // an explicit entry's own
    const match = splitPointer(d.pointer)[3];
    if (match === undefined) return undefined;
    const key = JSON.stringify([s.instance, s.container, match]);
    const b = out.get(key);
    const located = { ...d, related: [...(d.related ?? []), { message: selectorMatchNote(s, match) }] };
    out.set(key, { instance: s.instance, container: s.container, selector: s.key, match, diagnostics: [...(b?.diagnostics ?? []), located] });
  }
  return out;
}

/**
 * Whether some `--target` can select an address a match of `s` would have
 * (`inst.project["base/…"]`, `inst.group["base/…"]`). Conservative: only the prefix up to the
 * group is compared, and without case (the instance answers paths in its own case, a key may be
 * written in another), so a selector is skipped only when no target can name anything under its group.
 */
function mayTarget(targets: TargetSet, s: Selector): boolean {
  if (targets.written.length === 0) return true;
  const lower = targetSet(targets.written.map((t) => t.toLowerCase()));
  const noun = s.container === 'projects' ? 'project' : 'group';
  return lower.withinSegments([s.instance.toLowerCase(), { startsWith: `${noun}[${JSON.stringify(s.base.toLowerCase() + '/')}`.slice(0, -1) }]);
}

/**
 * A problem of a selector's body is one place in the files, so it is reported once, at the
 * selector (with the first match it was found in, and how many more), not once per match; a
 * problem of an explicit entry's value that overrides a selector's names the selector too.
 */
function oncePerSelector(diagnostics: readonly Diagnostic[], loaded: ConfigResult, origins: SelectorOrigins): Diagnostic[] {
  const selectors = loaded.sources.selectors!.list;
  const locations = loaded.sources.locations;
  const within = selectors.map((s) => ({ s, at: locations.written(s.pointer) }));
  const seen = new Map<string, { index: number; more: number }>();
  const out: Diagnostic[] = [];
  for (const d of diagnostics) {
    if (d.pointer === undefined) {
      out.push(d);
      continue;
    }
    const written = locations.written(d.pointer);
    const from = within.find((w) => written === w.at || written.startsWith(w.at + '/'));
    const match = splitPointer(d.pointer)[3];
    if (from && written !== d.pointer && match !== undefined) {
      const key = `${d.code}\0${written}\0${d.summary.replaceAll(match, '')}`;
      const first = seen.get(key);
      if (first) {
        first.more++;
        continue;
      }
      seen.set(key, { index: out.length, more: 0 });
      out.push({ ...d, related: [...(d.related ?? []), { message: selectorMatchNote(from.s, match) }] });
      continue;
    }
    const over = origins.overrideOver(d.pointer);
    if (over) {
      out.push({ ...d, related: [...(d.related ?? []), { message: `this overrides the value of selector "${over.selector.key}" declared here`, location: (() => { const l = locations.get(over.selector.pointer); return l?.key ?? l?.value; })() }] });
      continue;
    }
    out.push(d);
  }
  for (const { index, more } of seen.values()) {
    if (more === 0) continue;
    const d = out[index]!;
    out[index] = { ...d, related: [...(d.related ?? []), { message: moreMatchesNote(more) }] };
  }
  return out;
}
