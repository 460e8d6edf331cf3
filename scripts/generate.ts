/**
 * Produces every artifact derived from the field catalogue: the JSON Schemas under schemas/, the
 * precompiled (ajv standalone) validator and TS types under src/generated/, docs/settings.md, the
 * Terraform provider schema and the CDKTF bindings generated from it (src/generated/cdktf/).
 * `npm run generate` writes them; `test/generated.test.ts` fails when a committed one is stale.
 */
import { writeFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderArtifacts } from './artifacts.js';
import { renderBindings, BINDINGS_DIR } from './cdktf-bindings.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const artifacts = renderArtifacts();
// The CDKTF bindings are generated from the Terraform provider schema; their folder is replaced whole.
const bindings = await renderBindings(JSON.parse(artifacts['schemas/terraform-provider.schema.json']!) as Record<string, unknown>);
rmSync(path.join(root, BINDINGS_DIR), { recursive: true, force: true });
for (const [rel, content] of Object.entries({ ...artifacts, ...bindings })) {
  const abs = path.join(root, rel);
  mkdirSync(path.dirname(abs), { recursive: true });
  writeFileSync(abs, content);
  console.log(`wrote ${rel}`);
}
