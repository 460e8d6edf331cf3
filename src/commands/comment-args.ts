/** `plumb comment`'s command line as data (src/commands/args.ts). */
import { ArgvReader, HELP_OPTION } from './args.js';
import type { Options, Parsed } from './args.js';

export const COMMENT_USAGE = `Usage: plumb comment PLAN.json [--key NAME] [--token-env NAME...] [--config PATH...]

Posts a saved plan (\`plumb plan --out PLAN.json\`) on the merge request of the current pipeline as
one note, and updates that note on every later pipeline instead of adding another: the note is
found by a hidden marker, <!-- plumb-plan: KEY -->, among the notes of the token's user. It links
the job (CI_JOB_URL) and is cut to the service's limit of 1,000,000 characters, saying so.
Reads CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID and the token PLUMB_COMMENT_TOKEN (a
token that may comment; never an administrator token). CI_API_V4_URL must be on a pinned instance
(PLUMB_URL, CI_SERVER_URL in the service's CI, PLUMB_ALLOWED_URLS), over https unless on loopback.
Exit 0 posted, 1 error.

  --key NAME            which comment, when one merge request gets several (one per sharded
                        job); default: the plan's instance names
  --token-env NAME      a variable holding an administrator token (repeatable; default
                        PLUMB_TOKEN): refused when PLUMB_COMMENT_TOKEN holds the same token,
                        and masked, as the comment token is, in everything printed
  --config PATH         the configuration (YAML, repeatable), read only for the ca_bundle of its
                        instance at CI_API_V4_URL's host; without it, in the service's CI, the
                        runner's CI_SERVER_TLS_CA_FILE is trusted for CI_SERVER_URL
  -h, --help            this help
`;

export const COMMENT_OPTIONS = {
  key: { type: 'string' },
  config: { type: 'string', multiple: true },
  'token-env': { type: 'string', multiple: true },
  ...HELP_OPTION,
} as const satisfies Options;

export interface CommentArgs {
  readonly help: boolean;
  readonly planFile: string;
  readonly key?: string;
  /** PLUMB_TOKEN and every `--token-env`, once each. */
  readonly tokenEnvs: readonly string[];
  readonly config?: readonly string[];
}

export function parseCommentArgs(argv: readonly string[]): Parsed<CommentArgs> {
  const a = new ArgvReader('comment', argv, COMMENT_OPTIONS);
  if (a.positionals.length !== 1) a.problem('plumb comment needs one plan file', 'write plumb comment PLAN.json (the file `plumb plan --out PLAN.json` wrote)');
  const key = a.str('key');
  const config = a.list('config');
  return a.result({
    help: a.flag('help'),
    planFile: a.positionals[0] ?? '',
    ...(key !== undefined && { key }),
    tokenEnvs: [...new Set(['PLUMB_TOKEN', ...a.list('token-env')])],
    ...(config.length > 0 && { config }),
  });
}
