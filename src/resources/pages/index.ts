/**
 * The Pages kind: everything plumb knows about a project's Pages lives in this folder (config
 * resolution, pointers, plan, apply, payload, reasons).
 */
import type { Reason } from '../../engine/plan.js';
import type { KindModule } from '../kind.js';
import { projectPagesTerraform } from './terraform.js';
import { codesOf } from '../codes.js';
import { pagesProvider } from './provider.js';
import { pagesExporter } from './export.js';
import { PAGES_CONFIG } from './config.js';
import type { PagesPayload } from './payload.js';

export { pagesProvider, pagesExporter };

/** How a plan explains this kind's reasons to people (assembled in src/resources/index.ts). */
export const PAGES_REASONS = {
  'field-changed': 'declared values differ from the instance',
  'absent-requested': 'the configuration asks for it to be absent',
} as const satisfies Partial<Record<Reason, string>>;

/** The kind, whole: what every door asks of it (src/resources/kind.ts). */
export const pagesKind: KindModule<PagesPayload> = {
  kind: PAGES_CONFIG.kind,
  provider: pagesProvider,
  reasons: PAGES_REASONS,
  codes: codesOf(['PLUMB_PAGES_']),
  config: PAGES_CONFIG,
  terraform: projectPagesTerraform,
  exporter: pagesExporter,
};
