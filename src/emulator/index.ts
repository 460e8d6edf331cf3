/**
 * A faithful, stateful local emulator of the service's interface (application settings, group
 * access tokens, repository files, Pages) for tests and local runs. See docs/emulator.md.
 */
export { startEmulator, requireAdmin, type RunningEmulator, type EmulatorRoute, type EmulatorRequest } from './server.js';
// For an extra route module's handlers (EmulatorOptions.routes).
export { badRequest, json, type ApiResponse as EmulatorResponse } from './http.js';
export { addJobToken, addMergeRequest, terraformState, mergeRequestNotes, NOTE_LIMIT } from './ci-routes.js';
export { createEmulatorState, loadSeedFile, validateSeed, SeedError, type StateOptions } from './seed.js';
export {
  EmulatorState,
  type GroupRecord,
  type PagesRecord,
  type ProjectRecord,
  type ProtectedBranchRecord,
  type TokenRecord,
  type UserRecord,
  type VariableRecord,
} from './state.js';
export type {
  EmulatorOptions,
  EmulatorSeed,
  EmulatorTier,
  FaultAction,
  FaultRule,
  RecordedRequest,
  SeedBranch,
  SeedDeployment,
  SeedFile,
  SeedGroup,
  SeedGroupToken,
  SeedInstance,
  SeedMember,
  SeedPages,
  SeedPagesDomain,
  SeedPersonalToken,
  SeedProject,
  SeedProjectShare,
  SeedProtectedBranch,
  SeedUser,
  SeedVariable,
  Visibility,
} from './types.js';
