// Discovery benchmark (imported by bench/run.js; needs `npm run build`): listing the 3,000 projects
// of one group (`listGroupProjects`, what a `platform/**` selector will cost before any plan), with
// the emulator in a worker thread answering every request 20 ms after it arrives, at concurrency 8.
//
// The floor: the first page alone (it gives X-Total-Pages), then the other pages at once, 8 in
// flight: (1 + ceil((pages − 1) ÷ 8)) round trips × latency. Next to it, the baseline: a plain
// undici script making the same requests with the same concurrency and nothing else. The floor
// leaves out the server's time to build each page (the emulator answers the 8 pages in flight on
// one thread), which the baseline pays as plumb does: the target is the baseline's time.
import { Pool } from 'undici';
import { ApiClient } from '../dist/api/client.js';
import { listGroupProjects } from '../dist/api/discovery.js';
import { adminSeed, median, remoteEmulator } from './engine.js';
import { scale } from './lib.js';

const LATENCY_MS = 20;
const CONCURRENCY = 8;
const PROJECTS = scale(3000, 250);
const PER_PAGE = 100;
const RUNS = scale(5, 1);
const TOKEN = adminSeed.personal_access_tokens[0].token;

const QUERY = 'include_subgroups=true&with_shared=false&order_by=id&sort=asc&archived=false&simple=true';

/** The same requests with bare undici: page 1, then the rest with at most CONCURRENCY in flight. */
async function baseline(url) {
  const pool = new Pool(url, { connections: CONCURRENCY });
  const get = async (page) => {
    const res = await pool.request({ method: 'GET', path: `/api/v4/groups/platform/projects?per_page=${PER_PAGE}&${QUERY}&page=${page}`, headers: { 'private-token': TOKEN } });
    const body = await res.body.json();
    return { body, totalPages: Number(res.headers['x-total-pages']) };
  };
  try {
    const t0 = performance.now();
    const first = await get(1);
    const items = [...first.body];
    let next = 2;
    const lane = async () => {
      while (next <= first.totalPages) items.push(...(await get(next++)).body);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
    const ms = performance.now() - t0;
    if (items.length !== PROJECTS) throw new Error(`baseline listed ${items.length} projects`);
    return ms;
  } finally {
    await pool.close();
  }
}

export async function discoveryBenchmarks() {
  const projects = Array.from({ length: PROJECTS }, (_, i) => ({ path_with_namespace: `platform/app-${String(i).padStart(4, '0')}` }));
  const emu = await remoteEmulator({ users: [adminSeed], groups: [{ full_path: 'platform' }], projects });
  const client = new ApiClient({ baseUrl: emu.url, token: TOKEN, concurrency: CONCURRENCY });
  try {
    await listGroupProjects(client, 'platform', { includeSubgroups: true }); // warm-up
    await emu.addFault({ action: { kind: 'latency', ms: LATENCY_MS } });
    await emu.resetRequests();
    const refs = await listGroupProjects(client, 'platform', { includeSubgroups: true });
    const recorded = await emu.requests();
    // Alternated, so both see the same load of a shared machine.
    const times = [];
    const baselineTimes = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await listGroupProjects(client, 'platform', { includeSubgroups: true });
      times.push(performance.now() - t0);
      baselineTimes.push(await baseline(emu.url));
    }
    const ms = median(times);
    const base = median(baselineTimes);
    const pages = Math.ceil(PROJECTS / PER_PAGE);
    const floor = (1 + Math.ceil((pages - 1) / CONCURRENCY)) * LATENCY_MS;
    return [
      {
        name: `discovery: list ${PROJECTS.toLocaleString('en')} projects of one group: requests`,
        measured: `${recorded.length} (${refs.length} projects listed)`,
        target: `${pages} (one per page of ${PER_PAGE})`,
        ok: recorded.length === pages && recorded.every((r) => r.status === 200) && refs.length === PROJECTS,
      },
      {
        name: `discovery with ${LATENCY_MS} ms latency, concurrency ${CONCURRENCY}: wall time (median of ${RUNS})`,
        measured: `${ms.toFixed(0)} ms (floor ${floor} ms, ratio ${(ms / floor).toFixed(2)}; undici baseline ${base.toFixed(0)} ms, ratio ${(ms / base).toFixed(2)})`,
        // The emulator's own time per page of 100 projects (one thread for all 8 requests in flight)
        // is not in the floor; the baseline pays it too, so plumb is held to the baseline.
        target: '≤ 1.15× baseline',
        ok: ms / base <= 1.15,
      },
    ];
  } finally {
    await client.close();
    await emu.close();
  }
}

// `node bench/discovery.js` runs these rows alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./lib.js');
  printTable(await discoveryBenchmarks());
}
