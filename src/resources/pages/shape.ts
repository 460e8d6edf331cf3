/** A project's Pages as a Terraform resource: its type and address (src/catalogue/kinds.ts). */
import { PAGES_UPDATE_FIELDS } from '../../catalogue/index.js';
import type { TerraformResourceShape } from '../../catalogue/kinds.js';
import { ownerIdentity } from '../../catalogue/kinds.js';

export const PAGES_SHAPE: TerraformResourceShape = {
  kind: 'pages',
  type: 'plumb_project_pages',
  definition: 'pages',
  keyPath: ['projects', '{project}', 'pages'],
  identity: [ownerIdentity('project')],
  fields: PAGES_UPDATE_FIELDS,
  terraformWords: { allow_unpublish: 'Lets published = false unpublish the site (its deployments are removed; only a new pipeline deploys it again). Without it, such a plan is an error. Default: false.' },
};
