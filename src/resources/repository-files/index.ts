/**
 * The repository files kind: everything plumb knows about it lives in this folder (config
 * resolution, pointers, plan, apply, payload, reasons, state section, streaming hashes, diffs).
 */
import type { Reason } from '../../engine/plan.js';
import type { KindModule } from '../kind.js';
import { repositoryFileTerraform } from './terraform.js';
import { codesOf } from '../codes.js';
import { repositoryFilesProvider } from './provider.js';
import { repositoryFilesExporter } from './export.js';
import { FILE_CONFIG } from './config.js';
import type { FilePayload } from './payload.js';

export { repositoryFilesProvider, repositoryFilesExporter };

/** How a plan explains this kind's reasons to people (assembled in src/resources/index.ts). */
export const FILE_REASONS = {
  'missing-in-live': 'it does not exist on the instance',
  'absent-requested': 'the configuration asks for it to be absent',
  'content-changed': 'its content differs from the configuration',
  'execute-bit-changed': 'its execute bit differs from the configuration',
} as const satisfies Partial<Record<Reason, string>>;

/** The kind, whole: what every door asks of it (src/resources/kind.ts). */
export const repositoryFilesKind: KindModule<FilePayload> = {
  kind: FILE_CONFIG.kind,
  provider: repositoryFilesProvider,
  reasons: FILE_REASONS,
  codes: codesOf(['PLUMB_FILE_']),
  config: FILE_CONFIG,
  stateSlots: ['repository_files'],
  terraform: repositoryFileTerraform,
  exporter: repositoryFilesExporter,
};
