// Runs `plumb validate` in-process on the given paths and prints {ms, maxRssMb, exit} as JSON.
import { main } from '../dist/cli.js';

const t0 = process.hrtime.bigint();
let out = '';
const code = await main(['validate', '--json', ...process.argv.slice(2)], {
  stdout: (s) => (out += s),
  stderr: () => {},
  isTTY: false,
  env: { ...process.env },
  cwd: process.cwd(),
});
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
const diagnostics = JSON.parse(out).diagnostics.length;
console.log(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, exit: code, diagnostics }));
