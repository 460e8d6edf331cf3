/**
 * The configuration's JSON Schema for a set of kinds, compiled at run time with ajv: what the
 * schema pass runs when the kinds are not the built-in ones (whose validator `npm run generate`
 * precompiles into src/generated/config-validator.ts). Loaded only by `withKinds`
 * (src/resources/with-kinds.ts), never by the CLI's own commands.
 */
import Ajv from 'ajv';
import { configSchema } from './build.js';
import { VALIDATOR_OPTIONS, validationSchema } from './compact.js';
import type { CompiledConfigSchema, KindConfig } from '../config/kinds.js';


export function compileConfigSchema(kinds: readonly KindConfig[]): CompiledConfigSchema {
  const json = configSchema(kinds);
  const validate = new Ajv.default(VALIDATOR_OPTIONS).compile(validationSchema(json));
  return { validate, json: () => json };
}
