/**
 * The repository files kind: everything plumb knows about it lives in this folder (config
 * resolution, pointers, plan, apply, payload, reasons, state section, streaming hashes, diffs).
 */
import type { Reason } from '../../engine/plan.js';

export { repositoryFilesProvider } from './provider.js';
export { repositoryFilesExporter } from './export.js';

/** How a plan explains this kind's reasons to people (assembled in src/resources/index.ts). */
export const FILE_REASONS = {
  'content-changed': 'its content differs from the configuration',
  'execute-bit-changed': 'its execute bit differs from the configuration',
} as const satisfies Partial<Record<Reason, string>>;
