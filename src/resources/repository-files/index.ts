/**
 * The repository files kind: everything plumb knows about it lives in this folder (config
 * resolution, pointers, plan, apply, payload, reasons, state section, streaming hashes, diffs).
 *
 * This file is the kind's registry entry: light (no provider, no API client), its runtime parts
 * behind `load()` (./runtime.ts).
 */
import type { Reason } from '../../engine/plan.js';
import type { KindEntry } from '../kind.js';
import { codesOf } from '../codes.js';
import { FILE_CONFIG } from './config.js';
import { FILE_SHAPE } from './shape.js';
import type { FilesKindPayload } from './provider.js';

/** How a plan explains this kind's reasons to people (assembled by the registry, src/resources/index.ts). */
export const FILE_REASONS = {
  'missing-in-live': 'it does not exist on the instance',
  'absent-requested': 'the configuration asks for it to be absent',
  'content-changed': 'its content differs from the configuration',
  'execute-bit-changed': 'its execute bit differs from the configuration',
  'files-differ-from-target': 'declared files differ from the target branch, and no merge request of plumb\'s is open',
  'merge-request-up-to-date': 'its branch holds the declared files (waiting for review)',
  'merge-request-outdated': 'the declared files moved since plumb wrote its branch',
  'merge-request-fields-changed': 'its declared title or labels moved',
  'target-holds-files': 'the target branch already holds the declared files',
  'merge-request-foreign': 'someone else pushed to its branch',
  'pending-in-merge-request': 'it differs from its branch, and plumb\'s open merge request that fixes it waits for review',
} as const satisfies Partial<Record<Reason, string>>;

/** The kind's registry entry: what every door asks of it (src/resources/kind.ts). */
export const repositoryFilesKind: KindEntry<FilesKindPayload> = {
  kind: FILE_CONFIG.kind,
  reasons: FILE_REASONS,
  codes: codesOf(['PLUMB_FILE_']),
  config: FILE_CONFIG,
  stateSlots: ['repository_files'],
  terraformShape: FILE_SHAPE,
  load: async () => (await import('./runtime.js')).repositoryFilesRuntime,
};
