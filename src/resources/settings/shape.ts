/** The application settings as a Terraform resource: its type and address (src/catalogue/kinds.ts). */
import { SETTINGS } from '../../catalogue/index.js';
import type { TerraformResourceShape } from '../../catalogue/kinds.js';

export const SETTINGS_SHAPE: TerraformResourceShape = {
  kind: 'application_settings',
  type: 'plumb_application_settings',
  definition: 'settings',
  keyPath: ['settings'],
  identity: [],
  description: 'Instance-wide application settings (PUT /application/settings). Only the attributes you set are managed; each setting may be set by one resource.',
  deprecated: SETTINGS.filter((s) => !s.removed && s.deprecated).map((s) => s.name),
};
