/**
 * The standalone executable's entry (built by `npm run build:sea`, scripts/sea.js): Node's single
 * executable application, with this module and all of plumb bundled as its main script and plumb's
 * data files (proto/, the two schemas it reads, the emulator's example seed) as assets.
 *
 * Started under a name beginning with `terraform-provider-plumb` (the name Terraform and OpenTofu
 * run a provider by), it is `plumb provider`; otherwise it is `plumb ARGS`.
 */
import path from 'node:path';
import { getAsset, isSea } from 'node:sea';
import { main } from './cli.js';
import { useEmbeddedFiles } from './util/own-files.js';

/** The asset listing the names of the embedded files (SEA has no call that lists assets). */
export const MANIFEST_ASSET = 'plumb-files.json';

if (isSea()) {
  const names = JSON.parse(getAsset(MANIFEST_ASSET, 'utf8')) as string[];
  useEmbeddedFiles({ names, text: (name) => (names.includes(name) ? getAsset(name, 'utf8') : undefined) });
}

// A single executable's argv is [executable, the name it was started by, ...arguments].
const startedAs = path.basename(process.argv[1] ?? process.execPath);
const args = startedAs.startsWith('terraform-provider-plumb') ? ['provider'] : process.argv.slice(2);

main(args).then(
  (code) => {
    process.exitCode = code;
    // Interrupted (130 SIGINT, 143 SIGTERM): reported and recorded; nothing still running keeps the process alive.
    if (code === 130 || code === 143) process.exit();
  },
  (err: unknown) => {
    process.stderr.write(`plumb failed unexpectedly: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
