/**
 * What a merge-request plan may reveal (docs/security.md#what-a-merge-request-plan-reveals). The
 * merge-request plan runs with an administrator's read token, so a selector lists groups and
 * projects the merge request's author may not see; its plan, comment and artifact reach that
 * author. On a merge request plumb shows each selector's count and the names the configuration
 * declares, and replaces every other name a selector found (a match, and the groups between the
 * selector's group and it) by a placeholder, `(match 3 of teams/*)`, everywhere in the plan: the
 * addresses, summaries, diagnostics, blocked units, values. The protected default-branch plan and
 * apply show everything.
 *
 * plumb knows it plans for a merge request from the CI's own variables (never the configuration):
 * the service's `CI_MERGE_REQUEST_IID` / `CI_PIPELINE_SOURCE=merge_request_event`, GitHub's
 * `GITHUB_EVENT_NAME=pull_request`; `plan --withhold-matches` asks for it anywhere else, and
 * `--show-matches` turns it off (a pipeline whose merge-request authors may see everything).
 */
import { joinPointer } from '../config/pointer.js';
import type { ConfigResult } from '../config/validate.js';
import type { Plan } from './plan.js';

/** Why this run plans for a merge request, from the CI's variables; undefined when it does not. */
export function mergeRequestSource(env: NodeJS.ProcessEnv): string | undefined {
  if (env.CI_MERGE_REQUEST_IID) return 'CI_MERGE_REQUEST_IID is set';
  const source = env.CI_PIPELINE_SOURCE;
  if (source === 'merge_request_event' || source === 'external_pull_request_event') return `CI_PIPELINE_SOURCE is ${source}`;
  const github = env.GITHUB_EVENT_NAME;
  if (github === 'pull_request' || github === 'pull_request_target') return `GITHUB_EVENT_NAME is ${github}`;
  return undefined;
}

/** Characters a path segment holds: a name is replaced only where it is not part of a longer one. */
const NAME = 'A-Za-z0-9_.\\-';

/**
 * `plan` with the names of selector matches the configuration does not declare replaced by
 * placeholders, and `withheld` set (apply refuses such a plan). `plan` itself when nothing is
 * withheld.
 */
export function withholdMatches(plan: Plan, loaded: ConfigResult, why: string): Plan {
  const locations = loaded.sources.locations;
  const declared = (instance: string, path: string) =>
    (['projects', 'groups'] as const).some((container) => {
      const pointer = joinPointer('/instances', instance, container, path);
      return locations.written(pointer) === pointer && locations.ownerOf(pointer) !== undefined;
    });
  const hidden = new Map<string, string>();
  let matches = 0;
  for (const c of loaded.sources.expansion?.counts ?? []) {
    const s = c.selector;
    if (!plan.instances.some((i) => i.name === s.instance)) continue;
    const depth = s.base.split('/').length;
    c.paths.forEach((path, i) => {
      if (declared(s.instance, path)) return;
      matches++;
      if (!hidden.has(path)) hidden.set(path, `(match ${i + 1} of ${s.key})`);
      // The groups between the selector's group and the match are names of the instance too.
      const parts = path.split('/');
      for (let n = depth + 1; n < parts.length; n++) {
        const group = parts.slice(0, n).join('/');
        if (!hidden.has(group) && !declared(s.instance, group)) hidden.set(group, `(a group under ${s.base})`);
      }
    });
  }
  if (hidden.size === 0) return plan;
  // Longest first, so that a group's name never stands in for part of a match's path; the
  // URL-encoded form (an API path in a diagnostic) and the JSON-pointer form (a change's pointer) too.
  const forms = new Map<string, string>();
  for (const [path, shown] of hidden) {
    forms.set(path, shown);
    forms.set(encodeURIComponent(path), shown);
    forms.set(path.replace(/~/g, '~0').replace(/\//g, '~1'), shown.replace(/~/g, '~0').replace(/\//g, '~1'));
  }
  const names = [...forms.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`(?<![${NAME}])(?:${names.map(escape).join('|')})(?![${NAME}])`, 'g');
  const text = JSON.stringify(plan).replace(pattern, (m) => forms.get(m) ?? m);
  return { ...(JSON.parse(text) as Plan), withheld: { why, matches } };
}
