import { build } from 'esbuild';
import path from 'node:path';
const root = process.cwd();
await build({
  entryPoints: [path.join(root, 'dist/cli.js')], outfile: path.join(root, 'dist/plumb.cjs'), bundle: true, format: 'cjs', platform: 'node',
  external: ['@grpc/grpc-js', '@grpc/proto-loader', '@msgpack/msgpack'], target: 'node20', minify: false, keepNames: false,
  define: { 'import.meta.url': '__plumb_module_url' },
  banner: { js: "var __plumb_module_url = require('node:url').pathToFileURL(__filename).href;" },
});
