/**
 * Counts, per resource kind, the files of src/ outside the kind's folder that name it: its kind
 * name as a string literal (`'pages'`), its Terraform type (`plumb_project_pages`), its folder
 * (`resources/pages/`), a name its folder exports (`resolvePages`, `PagesPayload`) or a type of
 * config/model.ts its folder uses (`DesiredPages`). Generated code (src/generated/) and the emulator (the service's side, not a door) are not
 * counted; names shorter than five letters, or that several kinds' folders use, are not a kind's. docs/architecture.md states
 * the numbers; test/lint/kind-mentions.test.ts fails when one grows above them, so a kind stays in
 * its folder. Usage: tsx scripts/count-kind-mentions.ts [--files]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILT_IN_CONFIG_KINDS } from '../src/resources/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A kind's folder under src/resources/, by kind name. */
const FOLDERS: Readonly<Record<string, string>> = Object.fromEntries(
  readdirSync(path.join(ROOT, 'src', 'resources'))
    .filter((d) => statSync(path.join(ROOT, 'src', 'resources', d)).isDirectory())
    .map((d) => {
      const index = readFileSync(path.join(ROOT, 'src', 'resources', d, 'config.ts'), 'utf8');
      const kind = /KindConfig = \{\s*kind: '([a-z_]+)'/.exec(index)?.[1];
      return [kind ?? d, d];
    }),
);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? files(p) : n.endsWith('.ts') ? [p] : [];
  });
}

export function kindMentions(root = ROOT): Record<string, string[]> {
  const src = path.join(root, 'src');
  const all = files(src).map((f) => path.relative(src, f).split(path.sep).join('/')).filter((f) => !f.startsWith('generated/') && !f.startsWith('emulator/'));
  const out: Record<string, string[]> = {};
  const namesOf = (folder: string): Set<string> => {
    const names = new Set<string>();
    for (const text of files(path.join(src, 'resources', folder)).map((f) => readFileSync(f, 'utf8'))) {
      for (const m of text.matchAll(/export (?:const|function|class|type|interface|async function) (\w+)/g)) names.add(m[1]!);
      for (const m of text.matchAll(/import (?:type )?\{([^}]*)\} from '\.\.\/\.\.\/config\/model\.js'/g)) for (const n of m[1]!.split(',')) if (n.trim().startsWith('Desired')) names.add(n.trim());
    }
    return names;
  };
  const byFolder = new Map(Object.values(FOLDERS).map((f) => [f, namesOf(f)]));
  for (const [kind, folder] of Object.entries(FOLDERS)) {
    const types = BUILT_IN_CONFIG_KINDS.terraformShapes.filter((r) => r.kind === kind).map((r) => r.type);
    const terms = [`'${kind}'`, `"${kind}"`, `resources/${folder}/`, `./${folder}/`, ...types];
    const names = [...byFolder.get(folder)!].filter((n) => n.length >= 5 && [...byFolder.entries()].every(([f, other]) => f === folder || !other.has(n)));
    const words = names.length > 0 ? new RegExp(`\\b(${names.join('|')})\\b`) : undefined;
    out[kind] = all.filter((f) => !f.startsWith(`resources/${folder}/`)).filter((f) => {
      const text = readFileSync(path.join(src, f), 'utf8');
      return terms.some((t) => text.includes(t)) || (words?.test(text) ?? false);
    });
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const m = kindMentions();
  for (const [kind, list] of Object.entries(m)) {
    process.stdout.write(`${kind}: ${list.length}\n`);
    if (process.argv.includes('--files')) for (const f of list) process.stdout.write(`  src/${f}\n`);
  }
}
