// The baseline of the whole-process benchmarks: a minimal script that makes the same requests as
// plumb, with undici and the same number of requests in flight, and nothing else (no validation,
// no plan, no state; secrets go to their files with one plain write each).
//
//   node bench/baseline.js JOB.json
//
// JOB: {url, token, concurrency, mode, groups: [{path, tokens: [{name, id?}]}], scopes,
// accessLevel, expiresAt, sinkDir, settings, projects: [{path, files: [{path, content}]}], branch,
// message}. Modes: plan (a list per group), create (a list per group, then its creates), rotate (a
// list per group, then its rotations), settings (GET, PUT, GET), files-plan (a HEAD per file),
// files-apply (a HEAD per file, then a PUT of its new content against the commit the HEAD named, or
// a POST of it when the HEAD found no file), files-commit (a HEAD per file, then one POST of a commit
// per project with an action per file, guarded by the commit each HEAD named), overlap (a token list and a variable list per group,
// then per token a create, a PUT of its CI/CD variable and a GET reading it back), report (`plumb report --expiring-within`'s reads: a
// token list per group, then per project its Pages settings and its Pages domains), files-mr (delivery
// by merge request: the open merge requests from `sourceBranch` in one instance-wide listing, a HEAD
// per file on `branch`, then per project one commit of its files on `sourceBranch`, made from
// `branch` by the commit itself, and one merge request).
// With `discover: {group, query}` (a selector's fleet) the files modes first list the group's
// projects as plumb does (the first page, then the others at once, `concurrency` in flight) and
// give each listed project the files of `files: [{path, content}]`. `branchRead`: one GET of the
// branch per project after its HEADs (plumb's plan reads a changed project's branch protection);
// `identity`: GET /personal_access_tokens/self and GET /user once (plumb's administrator check).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Pool } from 'undici';

const job = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const pool = new Pool(job.url, { connections: job.concurrency });
const headers = { 'private-token': job.token, 'content-type': 'application/json' };

// At most `concurrency` requests in flight.
let running = 0;
const waiting = [];
async function call(method, p, body) {
  if (running >= job.concurrency) await new Promise((r) => waiting.push(r));
  running++;
  try {
    const res = await pool.request({ method, path: `/api/v4${p}`, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await res.body.json();
    if (res.statusCode >= 400) throw new Error(`${method} ${p}: ${res.statusCode} ${JSON.stringify(json)}`);
    return json;
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** HEAD of a repository file: its last commit id, undefined when the file is absent. */
async function headFile(project, file) {
  if (running >= job.concurrency) await new Promise((r) => waiting.push(r));
  running++;
  try {
    const res = await pool.request({ method: 'HEAD', path: `/api/v4/projects/${encodeURIComponent(project)}/repository/files/${encodeURIComponent(file)}?ref=${job.branch}`, headers });
    await res.body.dump();
    if (res.statusCode === 404) return undefined;
    if (res.statusCode >= 400) throw new Error(`HEAD ${project} ${file}: ${res.statusCode}`);
    return res.headers['x-service-last-commit-id'];
  } finally {
    running--;
    waiting.shift()?.();
  }
}

async function projectFiles(project) {
  const lasts = await Promise.all(project.files.map((f) => headFile(project.path, f.path)));
  // plumb's plan reads the branch of a project with changes once (protection, can_push).
  if (job.branchRead) await call('GET', `/projects/${encodeURIComponent(project.path)}/repository/branches/${encodeURIComponent(job.branch)}`);
  if (job.mode === 'files-apply') {
    await Promise.all(
      project.files.map(async (f, i) => {
        const at = `/projects/${encodeURIComponent(project.path)}/repository/files/${encodeURIComponent(f.path)}`;
        const body = { branch: job.branch, commit_message: job.message, content: f.content, encoding: 'text' };
        if (lasts[i] === undefined) await call('POST', at, body);
        else await call('PUT', at, { ...body, last_commit_id: lasts[i] });
      }),
    );
  } else if (job.mode === 'files-commit') {
    const actions = project.files.map((f, i) => ({ action: lasts[i] === undefined ? 'create' : 'update', file_path: f.path, content: f.content, encoding: 'text', ...(lasts[i] !== undefined && { last_commit_id: lasts[i] }) }));
    await call('POST', `/projects/${encodeURIComponent(project.path)}/repository/commits`, { branch: job.branch, commit_message: job.message, actions, stats: false });
  }
}

const g = (group) => `/groups/${encodeURIComponent(group)}/access_tokens`;

async function group(grp) {
  // overlap: the group's variables are listed too, as plumb's plan checks the sinks.
  const [live] = await Promise.all([call('GET', `${g(grp.path)}?per_page=100`), ...(job.mode === 'overlap' ? [call('GET', `/groups/${encodeURIComponent(grp.path)}/variables?per_page=100`)] : [])]);
  if (job.mode === 'create') {
    await Promise.all(
      grp.tokens.map(async (t) => {
        const issued = await call('POST', g(grp.path), { name: t.name, scopes: job.scopes, access_level: job.accessLevel, expires_at: job.expiresAt });
        writeFileSync(path.join(job.sinkDir, `${grp.path}-${t.name}.token`), issued.token, { mode: 0o600 });
      }),
    );
  } else if (job.mode === 'overlap') {
    // A rotation with an overlap window (bench/overlap.js): the successor created, written into the
    // group's CI/CD variable of the token, read back and compared; the predecessor left active.
    const vars = `/groups/${encodeURIComponent(grp.path)}/variables`;
    await Promise.all(
      grp.tokens.map(async (t) => {
        if (!live.some((x) => x.name === t.name && x.active)) throw new Error(`no active token ${t.name} in ${grp.path}`);
        const issued = await call('POST', g(grp.path), { name: t.name, scopes: job.scopes, access_level: job.accessLevel, expires_at: job.expiresAt });
        const at = `${vars}/${t.key}?filter%5Benvironment_scope%5D=*`;
        await call('PUT', at, { value: issued.token, variable_type: 'env_var', protected: true, masked: true, raw: true, environment_scope: '*' });
        const back = await call('GET', at);
        if (back.value !== issued.token) throw new Error(`${grp.path} ${t.key}: the value read back is not the one written`);
      }),
    );
  } else if (job.mode === 'rotate') {
    await Promise.all(
      grp.tokens.map(async (t) => {
        const id = live.find((x) => x.name === t.name && x.active).id;
        const issued = await call('POST', `${g(grp.path)}/${id}/rotate`, { expires_at: job.expiresAt });
        writeFileSync(path.join(job.sinkDir, `${grp.path}-${t.name}.token`), issued.token, { mode: 0o600 });
      }),
    );
  }
}

/** Every project path of `group`: the first page (it gives X-Total-Pages), then the rest at once. */
async function discover({ group: grp, query }) {
  const page = async (n) => {
    if (running >= job.concurrency) await new Promise((r) => waiting.push(r));
    running++;
    try {
      const res = await pool.request({ method: 'GET', path: `/api/v4/groups/${encodeURIComponent(grp)}/projects?${query}&per_page=100&page=${n}`, headers });
      const json = await res.body.json();
      if (res.statusCode >= 400) throw new Error(`GET ${grp} projects: ${res.statusCode}`);
      return { paths: json.map((p) => p.path_with_namespace), total: Number(res.headers['x-total-pages']) };
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
  const first = await page(1);
  const rest = await Promise.all(Array.from({ length: first.total - 1 }, (_, i) => page(i + 2)));
  return [first, ...rest].flatMap((p) => p.paths);
}

if (job.discover) job.projects = (await discover(job.discover)).map((p) => ({ path: p, files: job.files }));

if (job.mode === 'settings') {
  await call('GET', '/application/settings');
  await call('PUT', '/application/settings', job.settings);
  await call('GET', '/application/settings');
} else if (job.mode === 'files-mr') {
  const [open] = await Promise.all([
    call('GET', `/merge_requests?scope=all&state=opened&source_branch=${encodeURIComponent(job.sourceBranch)}&per_page=100`),
    // plumb's identity (an administrator lists the fleet's merge requests at once; its commits are told by its email).
    ...(job.identity ? [call('GET', '/personal_access_tokens/self'), call('GET', '/user')] : []),
    Promise.all(job.projects.map(async (p) => (p.heads = await Promise.all(p.files.map((f) => headFile(p.path, f.path)))))),
  ]);
  if (open.length !== 0) throw new Error('files-mr expects no open merge request');
  await Promise.all(
    job.projects.map(async (p) => {
      const at = `/projects/${encodeURIComponent(p.path)}`;
      const actions = p.files.map((f, i) => ({ action: p.heads[i] === undefined ? 'create' : 'update', file_path: f.path, content: f.content, encoding: 'text', ...(p.heads[i] !== undefined && { last_commit_id: p.heads[i] }) }));
      await call('POST', `${at}/repository/commits`, { branch: job.sourceBranch, start_branch: job.branch, commit_message: job.message, actions });
      await call('POST', `${at}/merge_requests`, { source_branch: job.sourceBranch, target_branch: job.branch, title: job.message, description: job.message });
    }),
  );
} else if (job.mode === 'files-plan' || job.mode === 'files-apply' || job.mode === 'files-commit') {
  // plumb's identity (is its user an administrator?), read once when a protected branch lets it push.
  await Promise.all([...(job.identity ? [call('GET', '/personal_access_tokens/self'), call('GET', '/user')] : []), ...job.projects.map(projectFiles)]);
} else if (job.mode === 'report') {
  await Promise.all([
    ...job.groups.map(group),
    ...job.projects.flatMap((p) => [call('GET', `/projects/${encodeURIComponent(p.path)}/pages`), call('GET', `/projects/${encodeURIComponent(p.path)}/pages/domains?per_page=100`)]),
  ]);
} else {
  await Promise.all(job.groups.map(group));
}
await pool.close();
