/**
 * Stage 3 of loading a configuration: **merge**. With every document parsed (./parse.ts, or a
 * front-end's documents as data), the credential variables of the whole configuration are known
 * (../credentials.ts: every `token_env`, plumb's and the CI's token variables, which no value may
 * read); each document's values are copied and interpolated where the kinds' places allow
 * (../values.ts, ../interpolate.ts, every interpolated value registered as a secret) and
 * deep-merged (../merge.ts: a resource or a leaf owned by one file); `defaults:` is inherited
 * (../defaults.ts); the selector entries are taken out and their bodies checked
 * (../selectors.ts, ../selector-checks.ts). The loader's problems are located last, through the
 * pointer map. The result is the merged data the schema stage checks.
 */
import type { Diagnostic } from '../../diagnostics/index.js';
import { SecretRegistry } from '../secrets.js';
import { extractSelectors } from '../selectors.js';
import { checkSelectorBodies } from '../selector-checks.js';
import { AliasLimitExceeded, aliasExpansionDiagnostic, newAliasBudget } from '../aliases.js';
import { fromYaml } from '../values.js';
import { mergeInto } from '../merge.js';
import { DefaultsOrigins, inheritDefaults } from '../defaults.js';
import { isPlainObject, ReportedPointers } from '../loading.js';
import { credentialsOf } from '../credentials.js';
import type { PendingDiagnostic, WalkContext } from '../loading.js';
import type { ConfigKinds } from '../kinds.js';
import type { LoadedSources } from '../load.js';
import type { ParsedConfig } from './parse.js';

export interface MergeOptions {
  /** Environment for `${env:NAME}`. */
  readonly env: NodeJS.ProcessEnv;
  /** `--unavailable-secrets skip` (LoadOptions.unavailableSecrets). */
  readonly unavailableSecrets: boolean;
  /** The kinds whose places decide merging, interpolation and names, and whose mounts `defaults:`. */
  readonly kinds: ConfigKinds;
}

export function mergeConfig(parsed: ParsedConfig, opts: MergeOptions): LoadedSources {
  const { env, kinds } = opts;
  const { locations } = parsed;
  const diagnostics: Diagnostic[] = [...parsed.diagnostics];
  const pending: PendingDiagnostic[] = [];
  const secrets = new SecretRegistry();
  const reported = new ReportedPointers();
  const defaults = new DefaultsOrigins();
  const data: Record<string, unknown> = {};
  // Every document is parsed before any is interpolated: a token_env in a later file protects its
  // variable in an earlier one, and a credential is refused before it is read (../credentials.ts).
  const credentials = credentialsOf(
    parsed.documents.map((d) => d.parsed),
    env,
  );
  for (const { file, abs, fileIndex, roots, source, parsed: value0 } of parsed.documents) {
    const pointers: string[] = [];
    const ctx: WalkContext = { file, abs, env, secrets, pending, fileIndex, pointers, reported, aliases: newAliasBudget(), roots, unavailableSecrets: opts.unavailableSecrets, places: kinds.pointers, credentials };
    let value: unknown;
    try {
      value = fromYaml(value0, '', ctx);
    } catch (err) {
      if (!(err instanceof AliasLimitExceeded)) throw err;
      // Nothing of this file is used: its pending diagnostics would point into the expansion.
      pending.splice(0, pending.length, ...pending.filter((d) => d.fileIndex !== fileIndex));
      diagnostics.push(aliasExpansionDiagnostic(source, true)!);
      continue;
    }
    if (value === null || value === undefined) continue; // an empty file contributes nothing
    if (!isPlainObject(value)) {
      pending.push({
        severity: 'error',
        code: 'PLUMB_CONFIG_SHAPE',
        summary: 'A plumb configuration file must be a mapping at the top level',
        suggestion: 'start the file with `version: 1` and an `instances:` mapping',
        fileIndex,
        pointer: '',
      });
      continue;
    }
    mergeInto(data, value, '', fileIndex, locations, pending, kinds.pointers);
    // First definition wins: a duplicate's own locations stay reachable through its diagnostic.
    for (const p of pointers) locations.own(p, fileIndex);
  }
  inheritDefaults(data, locations, secrets, defaults, pending, kinds.configs);
  // The credentials are secrets though the configuration never holds them: every output masks them.
  for (const value of credentials.values) secrets.add(value);
  const selectors = extractSelectors(data, locations, diagnostics);
  checkSelectorBodies(data, selectors, locations, diagnostics);
  for (const { fileIndex, pointer, on, ...d } of pending) {
    const l = locations.in(fileIndex, pointer);
    diagnostics.push({ ...d, pointer, location: on === 'key' ? (l?.key ?? l?.value) : l?.value });
  }
  return { data, diagnostics, texts: parsed.texts, locations, secrets, files: parsed.files, roots: parsed.roots, reported, defaults, ...(selectors.size > 0 && { selectors }) };
}
