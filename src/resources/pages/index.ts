/**
 * The Pages kind: everything plumb knows about a project's Pages lives in this folder (config
 * resolution, pointers, plan, apply, payload, reasons).
 */
import type { Reason } from '../../engine/plan.js';

export { pagesProvider } from './provider.js';
export { pagesExporter } from './export.js';

/** How a plan explains this kind's reasons to people (assembled in src/resources/index.ts). */
export const PAGES_REASONS = {
  'field-changed': 'declared values differ from the instance',
  'absent-requested': 'the configuration asks for it to be absent',
} as const satisfies Partial<Record<Reason, string>>;
