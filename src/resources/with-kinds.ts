/**
 * A registry of other kinds than the built-in ones (a test's fifth kind, in test/fixtures/kinds/):
 * `await withKinds([...KIND_ENTRIES, fifth])` is a `KindSet` whose doors all know the added kind.
 * What a build generates for the built-in kinds it makes at run time: the configuration's JSON
 * Schema, compiled (src/schema/compile.ts), and the Terraform provider schema
 * (src/schema/terraform.ts). Kept apart from src/resources/index.ts so the CLI never loads ajv's
 * compiler.
 */
import { configKinds, loadKinds } from './index.js';
import type { KindSet } from './index.js';
import type { KindEntry } from './kind.js';
import { compileConfigSchema } from '../schema/compile.js';
import { terraformProviderSchema } from '../schema/terraform.js';

export function withKinds(entries: readonly KindEntry[]): Promise<KindSet> {
  const light = configKinds(entries);
  return loadKinds(entries, { schema: compileConfigSchema(light.configs), terraformSchema: () => terraformProviderSchema(light.configs, light.terraformShapes) });
}
