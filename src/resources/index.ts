/**
 * The kinds registry: the one place that lists every resource kind. commands/ hands `KINDS` to the
 * engine and `REASON_TEXT` to the renderers; neither imports a kind. Adding a kind means a folder
 * src/resources/<kind>/ and a line here (docs/architecture.md).
 */
import type { DesiredInstance } from '../config/model.js';
import type { Reason } from '../engine/plan.js';
import type { KindRegistry } from '../engine/resource.js';
import type { ResourceExporter } from '../engine/export.js';
import { SETTINGS_REASONS, settingsExporter, settingsProvider } from './settings/index.js';
import { TOKEN_REASONS, groupAccessTokensExporter, groupAccessTokensProvider } from './group-access-tokens/index.js';
import { PAGES_REASONS, pagesExporter, pagesProvider } from './pages/index.js';
import { FILE_REASONS, repositoryFilesExporter, repositoryFilesProvider } from './repository-files/index.js';

export const KINDS: KindRegistry = {
  /** In the order a plan lists and apply executes them. */
  providers: [settingsProvider, groupAccessTokensProvider, repositoryFilesProvider, pagesProvider],
  /** Declared in the configuration and validated, not planned yet: each plan warns that they are left untouched. */
  validatedOnly: [
  ],
};

/** Each kind's part of `plumb export` (src/resources/<kind>/export.ts), in the order of KINDS.providers. */
export const EXPORTERS: readonly ResourceExporter[] = [settingsExporter, groupAccessTokensExporter, repositoryFilesExporter, pagesExporter];

/** Every reason's text; a reason no kind explains fails to compile here. */
export const REASON_TEXT: Readonly<Record<Reason, string>> = { ...SETTINGS_REASONS, ...TOKEN_REASONS, ...FILE_REASONS, ...PAGES_REASONS };

/**
 * Whether applying the configuration (or one instance of it) writes machine-readable output to
 * standard output, as a token with `sink: {stdout: true}` does.
 */
export function writesStdout(instances: readonly DesiredInstance[], only: string | undefined): boolean {
  return instances.some((i) => (!only || i.name === only) && KINDS.providers.some((p) => p.writesStdout?.(i)));
}
