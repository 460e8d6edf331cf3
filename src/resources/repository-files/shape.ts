/** A repository file as a Terraform resource: its type and address (src/catalogue/kinds.ts). */
import { FILE_WRITE_FIELDS } from '../../catalogue/index.js';
import type { TerraformResourceShape } from '../../catalogue/kinds.js';

export const FILE_SHAPE: TerraformResourceShape = {
  kind: 'repository_file',
  type: 'plumb_repository_file',
  definition: 'file',
  keyPath: ['projects', '{project}', 'files', '{file_path}'],
  identity: [
    { name: 'project', description: 'The project: its full path or numeric id.' },
    { name: 'file_path', description: 'Path of the file in the repository (plain: no "..", "." or empty segments, no leading "/").' },
  ],
  fields: FILE_WRITE_FIELDS,
  terraformWords: { source: 'A local file whose content is used (relative to the working directory, inside the configuration root). Not empty.' },
};
