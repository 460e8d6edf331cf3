/** A repository file as a Terraform resource: its type and address (src/catalogue/kinds.ts). */
import { FILE_WRITE_FIELDS } from '../../catalogue/index.js';
import type { TerraformResourceShape } from '../../catalogue/kinds.js';
import { ownerIdentity } from '../../catalogue/kinds.js';

export const FILE_SHAPE: TerraformResourceShape = {
  kind: 'repository_file',
  type: 'plumb_repository_file',
  definition: 'file',
  keyPath: ['projects', '{project}', 'files', '{file_path}'],
  identity: [
    ownerIdentity('project'),
    { name: 'file_path', description: 'Path of the file in the repository (plain: no "..", "." or empty segments, no leading "/").' },
  ],
  fields: FILE_WRITE_FIELDS,
  terraformWords: {
    source: 'A local file whose content is used (relative to the working directory, inside the configuration root). Not empty.',
    delivery: 'How the project\'s changed files reach it: at most one `commit` or `merge_request` block (default: commit). Through `plumb plan/apply` of a CDKTF app, the files of one project must agree on it and share one commit per branch, or one merge request; under terraform, each resource is its own commit and `merge_request` is refused (docs/terraform.md#file-delivery).',
    'delivery.commit': 'Write the changed files in one commit per branch (under terraform: one commit per resource).',
    'delivery.merge_request': 'One merge request per project, from a branch plumb rebuilds from the target branch in one commit. Only through `plumb plan/apply` (CDKTF); refused under terraform, which applies one resource at a time.',
  },
  // `delivery` is the project's (docs/config.md#delivering-files): each file of the project states it.
  lifted: { delivery: { definition: 'delivery', keyPath: ['projects', '{project}', 'delivery'] } },
};
