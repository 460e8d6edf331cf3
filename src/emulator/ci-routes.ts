/** The CI routes, registered: the Terraform-state API and merge-request notes (see ci.ts). */
import './terraform-state.js';
import './notes.js';

export { ciRoute, addJobToken, addMergeRequest } from './ci.js';
export { terraformState, terraformStates } from './terraform-state.js';
export { mergeRequestNotes, NOTE_LIMIT } from './notes.js';
