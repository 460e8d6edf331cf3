/**
 * Produces every artifact derived from the field catalogue: the JSON Schemas under schemas/, the
 * precompiled (ajv standalone) validator and TS types under src/generated/, and docs/settings.md.
 * `npm run generate` writes them; `test/generated.test.ts` fails when a committed one is stale.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderArtifacts } from './artifacts.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
for (const [rel, content] of Object.entries(renderArtifacts())) {
  const abs = path.join(root, rel);
  mkdirSync(path.dirname(abs), { recursive: true });
  writeFileSync(abs, content);
  console.log(`wrote ${rel}`);
}
