/**
 * The Pages kind: everything plumb knows about a project's Pages lives in this folder (config
 * resolution, pointers, plan, apply, payload, reasons).
 *
 * This file is the kind's registry entry: light (no provider, no API client), its runtime parts
 * behind `load()` (./runtime.ts).
 */
import type { Reason } from '../../engine/plan.js';
import type { KindEntry } from '../kind.js';
import { codesOf } from '../codes.js';
import { PAGES_CONFIG } from './config.js';
import { PAGES_SHAPE } from './shape.js';
import type { PagesPayload } from './payload.js';

/** How a plan explains this kind's reasons to people (assembled by the registry, src/resources/index.ts). */
export const PAGES_REASONS = {
  'field-changed': 'declared values differ from the instance',
  'absent-requested': 'the configuration asks for it to be absent',
} as const satisfies Partial<Record<Reason, string>>;

/** The kind's registry entry: what every door asks of it (src/resources/kind.ts). */
export const pagesKind: KindEntry<PagesPayload> = {
  kind: PAGES_CONFIG.kind,
  reasons: PAGES_REASONS,
  codes: codesOf(['PLUMB_PAGES_']),
  config: PAGES_CONFIG,
  terraformShape: PAGES_SHAPE,
  load: async () => (await import('./runtime.js')).pagesRuntime,
};
