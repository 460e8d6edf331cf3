// Loaded with `node --require` by bench/fleet.js: writes the process's peak RSS (MB) at exit to the
// file PLUMB_BENCH_RSS_FILE names, so a whole-process benchmark reads the child's own figure.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS preload (node --require) has only require
const { writeFileSync } = require('node:fs');

const file = process.env.PLUMB_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, JSON.stringify({ maxRssMb: process.resourceUsage().maxRSS / 1024 })));
