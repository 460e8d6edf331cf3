/** A group access token as a Terraform resource: its type and address (src/catalogue/kinds.ts). */
import { GROUP_ACCESS_TOKEN_FIELDS } from '../../catalogue/index.js';
import type { TerraformResourceShape } from '../../catalogue/kinds.js';
import { ownerIdentity } from '../../catalogue/kinds.js';

const COMMAND_WORDS = 'Program and arguments (a program on PATH, or a path relative to the working directory); receives the secret on standard input.';

export const TOKEN_SHAPE: TerraformResourceShape = {
  kind: 'group_access_token',
  type: 'plumb_group_access_token',
  definition: 'access_token',
  keyPath: ['groups', '{group}', 'access_tokens', '{name}'],
  identity: [
    ownerIdentity('group'),
    { name: 'name', description: 'The token name: its identity among the group\'s active tokens.' },
  ],
  fields: GROUP_ACCESS_TOKEN_FIELDS,
  // The one-sink block and the repeatable one describe a command sink alike.
  terraformWords: { 'sink.command': COMMAND_WORDS, 'sinks.command': COMMAND_WORDS },
};
