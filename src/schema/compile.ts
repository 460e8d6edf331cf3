/**
 * The configuration's JSON Schema for a set of kinds, compiled at run time with ajv: what the
 * schema pass runs when the kinds are not the built-in ones (whose validator `npm run generate`
 * precompiles into src/generated/config-validator.ts). Loaded only by `withKinds`
 * (src/resources/with-kinds.ts), never by the CLI's own commands.
 */
import Ajv from 'ajv';
import { configSchema } from './build.js';
import type { CompiledConfigSchema, KindConfig } from '../config/kinds.js';

/** The options the build compiles the generated validator with (scripts/artifacts.ts AJV_OPTIONS), less code generation. */
const OPTIONS = { allErrors: true, strict: true, allowUnionTypes: true, strictTypes: false, strictRequired: false, multipleOfPrecision: 9 } as const;

export function compileConfigSchema(kinds: readonly KindConfig[]): CompiledConfigSchema {
  const json = configSchema(kinds);
  const validate = new Ajv.default(OPTIONS).compile(json);
  return { validate, json: () => json };
}
