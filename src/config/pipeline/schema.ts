/**
 * Stage 4 of loading a configuration: **schema**. The merged data (./merge.ts) against the
 * configuration's JSON Schema, with `allErrors`: the precompiled ajv validator
 * (src/generated/config-validator.ts, generated from the catalogue by `npm run generate`), or the
 * one a registry of other kinds compiled at run time (`ConfigKinds.schema`). Each ajv error becomes
 * a diagnostic (../schema-errors.ts: one function per keyword; where a misplaced key belongs,
 * ../key-places.ts). Nothing is resolved here: that is ./resolve.ts.
 */
import type { ErrorObject } from 'ajv';
import { validate as generatedValidate } from '../../generated/config-validator.js';
import { committedSchema, dedupeErrors, mapSchemaError } from '../schema-errors.js';
import type { JsonSchemaNode } from '../schema-errors.js';
import type { Ctx } from '../resolve-context.js';
import type { ConfigKinds } from '../kinds.js';

/** The ajv standalone validator generated at build time (no schema compilation at start-up). */
const generatedSchema = generatedValidate as unknown as ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Appends the schema's problems with `ctx.sources.data` to `ctx.diagnostics`. */
export function checkSchema(kinds: ConfigKinds, ctx: Ctx): void {
  const validateSchema = kinds.schema?.validate ?? generatedSchema;
  if (validateSchema(ctx.sources.data)) return;
  const json = kinds.schema ? () => kinds.schema!.json() as JsonSchemaNode : committedSchema;
  for (const e of dedupeErrors(validateSchema.errors ?? [])) mapSchemaError(e, ctx, json, kinds);
}
