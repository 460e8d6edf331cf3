/**
 * A registry of other kinds than the built-in ones (a test's fifth kind, in test/fixtures/kinds/):
 * `withKinds([...KIND_MODULES, fifth])` is a `KindSet` whose doors all know the added kind. What a
 * build generates for the built-in kinds it makes at run time: the configuration's JSON Schema,
 * compiled (src/schema/compile.ts), and the Terraform provider schema (src/schema/terraform.ts).
 * Kept apart from src/resources/index.ts so the CLI never loads ajv's compiler.
 */
import { kindSet } from './index.js';
import type { KindSet } from './index.js';
import type { KindModule } from './kind.js';
import { compileConfigSchema } from '../schema/compile.js';
import { terraformProviderSchema } from '../schema/terraform.js';

export function withKinds(modules: readonly KindModule[]): KindSet {
  const configs = modules.map((m) => m.config);
  const shapes = modules.flatMap((m) => (m.terraform ? [m.terraform.shape] : []));
  return kindSet(modules, { schema: compileConfigSchema(configs), terraformSchema: () => terraformProviderSchema(configs, shapes) });
}
