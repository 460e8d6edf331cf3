/**
 * The provider as one JavaScript file, `dist/plumb-provider.cjs` (built by `npm run build`,
 * scripts/bundle.js): all of plumb and its dependencies in one CommonJS script, with the data files
 * the provider reads (proto/, the schemas) embedded. `plumb provider mirror` copies it into the
 * mirror beside a launcher that runs it with the Node.js on PATH, so the mirrored provider holds no
 * path of the machine that wrote it and hashes the same wherever a release is installed
 * (docs/terraform.md, "One hash on every machine").
 */
import { main } from './cli.js';
import { useEmbeddedFiles } from './util/own-files.js';

/** Package path → text, written into the bundle by scripts/bundle.js. */
declare const __plumb_embedded_files: Readonly<Record<string, string>>;

const files = __plumb_embedded_files;
useEmbeddedFiles({ names: Object.keys(files), text: (name) => (Object.hasOwn(files, name) ? files[name] : undefined) });

main(['provider']).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`plumb's provider failed unexpectedly: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
