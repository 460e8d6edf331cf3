/** The CI/CD variables kind's runtime parts, loaded by its registry entry's `load()` (./index.ts) when a door needs them. */
import type { KindRuntime } from '../kind.js';
import { ciVariablesProvider } from './provider.js';
import { ciVariablesExporter } from './export.js';
import type { VariablePayload } from './payload.js';
import { groupVariableTerraform, projectVariableTerraform } from './terraform.js';

export const ciVariablesRuntime: KindRuntime<VariablePayload> = { provider: ciVariablesProvider, exporter: ciVariablesExporter, terraform: [projectVariableTerraform, groupVariableTerraform] };
