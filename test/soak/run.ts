/**
 * `node --import tsx test/soak/run.ts [--faults N] [--seed S]`: runs the fault soak and prints its
 * result as one JSON line (bench/soak.js turns it into a table).
 */
import { parseArgs } from 'node:util';
import { soak } from './soak.js';

const { values } = parseArgs({ options: { faults: { type: 'string', default: '1000' }, seed: { type: 'string', default: '20261123' } } });
const t0 = performance.now();
const result = await soak({ seed: Number(values.seed), minFaults: Number(values.faults) });
console.log(JSON.stringify({ ...result, seed: Number(values.seed), ms: performance.now() - t0 }));
