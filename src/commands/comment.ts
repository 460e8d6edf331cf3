/**
 * `plumb comment PLAN.json`: the plan as one merge-request note, created on the first pipeline and
 * updated on every later one (found by a hidden marker, `<!-- plumb-plan: KEY -->`, among the notes
 * the comment token's user wrote). Runs in a merge-request pipeline of the service's CI: the API
 * address, project and merge request come from CI_API_V4_URL, CI_PROJECT_ID and
 * CI_MERGE_REQUEST_IID; the token from PLUMB_COMMENT_TOKEN, which must not be an administrator
 * token plumb uses (docs/ci.md#the-plan-comment). It reads no configuration and never contacts the
 * instance being managed with the admin token.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Dispatcher } from 'undici';
import { instanceDispatcher, instanceFetch } from '../api/client.js';
import { serviceRefusal, trustedCaFile, urlPolicy } from '../engine/connection.js';
import { SecretRegistry } from '../config/secrets.js';
import { loadConfig } from '../config/validate.js';
import type { DesiredConfig } from '../config/model.js';
import { fileErrorSentence } from '../util/file-error.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import { PlumbError } from '../diagnostics/error.js';
import { checkPlanFile } from '../engine/plan.js';
import { checkPlanMeaning, checkPlanPayloads } from '../engine/payload-check.js';
import type { Plan } from '../engine/plan.js';
import { renderPlanMarkdown } from '../render/markdown.js';
import { builtInKinds, REASON_TEXT } from '../resources/index.js';
import type { ReasonTexts } from '../render/human.js';
import type { CommandHooks, Io } from './output.js';
import { commentView } from './views/comment.js';

/** The service's limit on a note, in characters. */
export const NOTE_LIMIT = 1_000_000;

export interface CommentFlags {
  readonly planFile: string;
  /** Which comment this is, when one merge request has several (one per sharded job). */
  readonly key?: string;
  /** Variables holding administrator tokens: the comment token must differ from each. */
  readonly tokenEnvs: readonly string[];
  /**
   * The configuration (`--config PATH`, repeatable), read only for the `ca_bundle` of its instance
   * at CI_API_V4_URL's host.
   */
  readonly config?: readonly string[];
  /** Test hook: a smaller note limit. */
  readonly limit?: number;
}

export const markerOf = (key: string): string => `<!-- plumb-plan: ${key} -->`;

interface Note {
  readonly id: number;
  readonly body: string;
  readonly author?: { readonly id: number } | null;
}

/** `hooks.kinds`: the registry whose payload parsers check the plan and whose reason texts show it. */
export async function runComment(flags: CommentFlags, io: Io, hooks: CommandHooks = {}): Promise<number> {
  const kinds = hooks.kinds ?? (await builtInKinds());
  const env = io.env;
  // The comment token and every administrator token named (--token-env, PLUMB_TOKEN) are masked in
  // all it prints, as the configuration's token is by plan and apply.
  const secrets = new SecretRegistry();
  for (const name of ['PLUMB_COMMENT_TOKEN', ...flags.tokenEnvs]) if (env[name]) secrets.add(env[name]);
  const view = commentView(io, (s) => secrets.redact(s));
  const fail = (code: DiagnosticCode, summary: string, suggestion: string): number => view.problem([{ severity: 'error', code, summary, suggestion }]);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path.resolve(io.cwd, flags.planFile), 'utf8'));
  } catch (err) {
    const why = err instanceof SyntaxError ? 'it is not JSON' : fileErrorSentence(err);
    return fail('PLUMB_PLAN_UNREADABLE', `Cannot read the plan file ${flags.planFile}: ${why}`, 'comment with the file `plumb plan --out FILE` wrote');
  }
  const bad = checkPlanFile(data) ?? checkPlanPayloads(data as Plan, kinds.engine);
  if (bad) return fail('PLUMB_PLAN_INVALID', `${flags.planFile} is not a plan: ${bad}`, 'comment with the file `plumb plan --out FILE` wrote');
  const plan = data as Plan;
  // The note is rendered from the attributes: they must say what the payloads (what apply sends) mean.
  const edited = checkPlanMeaning(plan, kinds.engine);
  if (edited) {
    return fail('PLUMB_PLAN_EDITED', `${flags.planFile} was edited: ${edited.address}: ${edited.problem}; what it shows is not what apply would do`, 'comment with the file `plumb plan --out FILE` wrote, unedited');
  }

  const missing = ['CI_API_V4_URL', 'CI_PROJECT_ID', 'CI_MERGE_REQUEST_IID'].filter((n) => !env[n]);
  if (missing.length > 0) {
    return fail('PLUMB_COMMENT', `plumb comment runs in a merge-request pipeline: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set`, 'run it in a job with `rules: - if: $CI_PIPELINE_SOURCE == "merge_request_event"`');
  }
  const token = env.PLUMB_COMMENT_TOKEN;
  if (!token) return fail('PLUMB_COMMENT', 'PLUMB_COMMENT_TOKEN is not set', 'give the job a token that may comment on merge requests (a project access token with the api scope and the Reporter role), as the masked CI/CD variable PLUMB_COMMENT_TOKEN');
  // A header cannot carry it, and the HTTP library's error would quote it whole: said without a
  // word of the value (which may be every variable of the job: `printenv` without a name).
  if (!TOKEN_TEXT.test(token)) {
    const lines = token.split('\n').filter(Boolean).length;
    return fail(
      'PLUMB_COMMENT',
      `PLUMB_COMMENT_TOKEN is not a token: it holds white space or control characters${lines > 1 ? ` (${lines} lines: is it the output of printenv without a variable name?)` : ''}; nothing was sent`,
      'put the comment token alone in the masked CI/CD variable PLUMB_COMMENT_TOKEN (the component copies it only when comment_token_variable names a variable)',
    );
  }
  const admin = flags.tokenEnvs.find((n) => env[n] !== undefined && env[n] === token);
  if (admin) {
    return fail(
      'PLUMB_COMMENT',
      `PLUMB_COMMENT_TOKEN holds the same token as ${admin}: plumb does not post comments with an administrator token`,
      'create a token that may only comment (a project access token, api scope, Reporter role) and put it in PLUMB_COMMENT_TOKEN',
    );
  }
  let api: URL;
  try {
    api = new URL(env.CI_API_V4_URL!.replace(/\/+$/, ''));
    if (api.protocol !== 'https:' && api.protocol !== 'http:') throw new TypeError('not http(s)');
  } catch {
    return fail('PLUMB_COMMENT', `CI_API_V4_URL is not an http(s) URL`, 'run plumb comment in the service\'s CI, which sets it');
  }
  // The comment token goes where the API's would: a pinned instance (PLUMB_URL, CI_SERVER_URL in
  // the service's CI, PLUMB_ALLOWED_URLS), over https unless on loopback; else nothing is sent.
  const refused = serviceRefusal(api.href.replace(/\/api\/v4\/?$/, ''), 'CI_API_V4_URL', urlPolicy(env));
  if (refused) {
    return view.problem([{ severity: 'error', code: refused.insecure ? 'PLUMB_COMMENT' : 'PLUMB_URL_NOT_ALLOWED', summary: refused.summary, detail: refused.detail, suggestion: refused.suggestion }]);
  }
  const key = (flags.key ?? (plan.instances.map((i) => i.name).join(',') || 'plan')).replace(/[^A-Za-z0-9_.,:/[\]"*-]/g, '_').replace(/--+/g, '-');
  const marker = markerOf(key);
  const notes = `${api.href}/projects/${encodeURIComponent(env.CI_PROJECT_ID!)}/merge_requests/${encodeURIComponent(env.CI_MERGE_REQUEST_IID!)}/notes`;
  const headers = { 'private-token': token };
  // The CAs the API client trusts for this host: the configuration's ca_bundle for it (with
  // --config), else, in the service's CI, the runner's CA file for its own instance.
  let instances: DesiredConfig['instances'] = [];
  if (flags.config && flags.config.length > 0) {
    const loaded = loadConfig(flags.config, { env, cwd: io.cwd, unavailableSecrets: true, kinds });
    if (!loaded.config) {
      return fail('PLUMB_COMMENT', `The configuration ${flags.config.join(', ')} is not valid, so its ca_bundle cannot be read`, 'run plumb validate on it');
    }
    instances = loaded.config.instances;
  }
  const caFile = trustedCaFile(api.href, instances, env);
  let caBundle: string | undefined;
  try {
    caBundle = caFile === undefined ? undefined : readFileSync(caFile, 'utf8');
  } catch (err) {
    return fail('PLUMB_COMMENT', `Cannot read the CA bundle ${caFile}: ${fileErrorSentence(err)}`, 'fix the instance\'s ca_bundle (or, in CI, the runner\'s CI_SERVER_TLS_CA_FILE)');
  }
  const dispatcher = instanceDispatcher(api.origin, { connections: 2, ...(caBundle !== undefined && { caBundle }) });
  const call = (method: string, url: string, hdrs: Record<string, string>, body?: object) => send(dispatcher, method, url, hdrs, body);

  const body = noteBody(plan, marker, env.CI_JOB_URL, flags.limit ?? NOTE_LIMIT, kinds.reasonText);
  try {
    const me = await call('GET', `${api.href}/user`, headers);
    const myId = (me.json as { id?: number } | undefined)?.id;
    let existing: Note | undefined;
    for (let page: string | null = '1'; page && !existing; ) {
      const r = await call('GET', `${notes}?sort=asc&order_by=created_at&per_page=100&page=${page}`, headers);
      existing = (r.json as Note[]).find((n) => n.body.startsWith(marker) && (myId === undefined || n.author?.id === myId));
      page = r.headers.get('x-next-page') || null;
    }
    if (existing) {
      await call('PUT', `${notes}/${existing.id}`, headers, { body });
      view.posted(existing.id, env.CI_MERGE_REQUEST_IID!, true);
    } else {
      const r = await call('POST', notes, headers, { body });
      view.posted((r.json as Note).id, env.CI_MERGE_REQUEST_IID!, false);
    }
    return 0;
  } catch (err) {
    if (!(err instanceof CommentError)) throw err;
    return view.problem([err.toDiagnostic()]);
  } finally {
    await dispatcher.close();
  }
}

/**
 * The note: the marker, the plan's markdown within the limit (saying so when cut), the job's link.
 * `reasons`: the reasons' texts of the registry the command runs with.
 */
export function noteBody(plan: Plan, marker: string, jobUrl: string | undefined, limit: number, reasons: ReasonTexts = REASON_TEXT): string {
  const link = jobUrl && /^https?:\/\/[^\s()<>]+$/.test(jobUrl) ? `\n[The job's log and artifacts](${jobUrl})\n` : '';
  const cut = `\n> **Note:** this plan was cut to fit the service's limit of ${limit.toLocaleString('en')} characters per comment; the full plan is in the job's artifacts.\n`;
  const room = limit - marker.length - 1 - link.length - cut.length;
  const markdown = renderPlanMarkdown(plan, room, reasons);
  const whole = renderPlanMarkdown(plan, Number.MAX_SAFE_INTEGER, reasons);
  return `${marker}\n${markdown}${markdown.length < whole.length ? cut : ''}${link}`;
}

/** A request of `plumb comment` that failed: the summary names the call. */
class CommentError extends PlumbError {
  constructor(summary: string) {
    super('PLUMB_COMMENT', summary, { suggestion: 'the comment token needs the api scope and at least the Reporter role on this project' });
  }
}

/** What a token is: one word of visible ASCII (what an HTTP header carries unchanged). */
const TOKEN_TEXT = /^[\x21-\x7e]+$/;

async function send(dispatcher: Dispatcher, method: string, url: string, headers: Record<string, string>, body?: object): Promise<{ json: unknown; headers: Headers }> {
  let res: Awaited<ReturnType<typeof instanceFetch>>;
  try {
    res = await instanceFetch(url, {
      dispatcher,
      method,
      headers: { ...headers, ...(body && { 'content-type': 'application/json' }) },
      ...(body && { body: JSON.stringify(body) }),
      redirect: 'manual',
      signal: AbortSignal.timeout(60_000),
    });
  } catch (err) {
    // Never the library's message: a header it refused is quoted whole in it.
    throw new CommentError(`${method} ${new URL(url).pathname} failed: ${(err as { cause?: { code?: string } }).cause?.code ?? 'the request could not be made'}`);
  }
  const text = await res.text();
  if (res.status >= 300) throw new CommentError(`${method} ${new URL(url).pathname} was answered ${res.status}${text.length < 300 ? `: ${text}` : ''}`);
  return { json: text ? (JSON.parse(text) as unknown) : undefined, headers: res.headers };
}
