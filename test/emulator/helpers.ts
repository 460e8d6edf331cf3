/**
 * The emulator conformance suite's fixtures: the standard seed, tokens, clock and HTTP helper of
 * the one harness (test/helpers/emulator.ts); `start` is its standard emulator.
 */
export * from '../helpers/emulator.js';
export { startStandardEmulator as start } from '../helpers/emulator.js';
