/**
 * Every diagnostic code plumb emits, with its one-line meaning: a closed registry. `Diagnostic.code`
 * is typed by it, so a new code does not compile until it is listed here, and docs/diagnostics.md
 * is generated from it (`npm run generate`; a test fails when the page is stale). Callers and tests
 * match on codes, never on message text, so a code is never renamed or reused.
 *
 * Read at run time only by tests and the generation: the program reads the codes' names from
 * src/generated/diagnostic-code-names.ts, so that no run builds the meanings (issue 30).
 */

export const DIAGNOSTIC_CODES = {
  // The command line and its inputs
  PLUMB_USAGE: 'An option or argument of the command is not usable (a date for --now that is not a date, …).',
  PLUMB_CONFIG_NOT_FOUND: 'No configuration file was found at the paths given (or plumb.yaml in the current directory).',
  PLUMB_CONFIG_UNREADABLE: 'A configuration file or directory exists but cannot be read.',
  PLUMB_CONFIG_ENCODING: 'A configuration file is not UTF-8 (UTF-16, a foreign byte order mark, …).',
  PLUMB_LOCAL_FILE_REFUSED: 'A local file the configuration makes plumb read (a configuration file, `${file:…}`, `source:`) is outside the configuration root, inside .git/, not a regular file (a FIFO, a device, /proc), or larger than its cap.',
  PLUMB_CONFIG_SHAPE: 'A configuration file is not a mapping at the top level.',
  PLUMB_PLAN_UNREADABLE: 'The plan file given to apply cannot be read or is not JSON.',
  PLUMB_PLAN_WITHHELD: 'The plan file given to apply was made for a merge request, with the names of selector matches withheld: only the default-branch plan is applied.',
  PLUMB_CONFIG_AMBIGUOUS: 'No configuration was given and both plumb.yaml and plumb.yml exist: plumb would read one and ignore the other.',
  PLUMB_STATE_UNUSABLE: 'The state file cannot be used: it is a directory, unreadable, not JSON (cut off mid-write), or (for apply) not writable.',
  PLUMB_STATE_LOCKED: 'Another plumb apply holds the lock on the state (the state file, the state backend, or the instance), and --lock-timeout ran out.',
  PLUMB_LOCK_FAILED: "The instance's lock file (`lock:`) could not be created, read or deleted: the project or branch does not exist, or the token may not write there.",
  PLUMB_OUTPUT_UNWRITABLE: 'A file or directory the command was asked to write (--out, --markdown, --report, --junit, --html) cannot be written, would overwrite a configuration file, a `source:` file or a file under .git/, or is a symlink export will not write through.',
  PLUMB_EXPORT_EDITED: 'export --out holds an earlier export whose plumb.yaml, or a file it wrote, was changed since (its header digest no longer matches); --force replaces them.',
  PLUMB_EXPORT_OUT_NOT_EMPTY: 'export --out names a directory that holds files export did not write; --force replaces them.',
  PLUMB_PLAN_INVALID: 'The plan file is not a plan this plumb can apply (another format version, a malformed change or payload).',

  // CDKTF apps (docs/cdktf.md)
  PLUMB_CDKTF_APP: 'The CDKTF app cannot be run: no cdktf.json, no `app` command in it, or a CDKTF app mixed with YAML paths.',
  PLUMB_CDKTF_ENV: 'PLUMB_CDKTF_ENV lists a variable holding a secret (a credential by its name, PLUMB_*, TF_VAR_*: the app is not run), or handed the app a value the configuration uses as a secret (an error after the synth).',
  PLUMB_CDKTF_NOT_ENABLED: 'A configuration path is a CDKTF app (it holds cdktf.json); plumb runs an app only with --cdktf DIR, so nothing ran.',
  PLUMB_CDKTF_SYNTH: "The CDKTF app's synth failed, did not finish within --cdktf-timeout, or wrote no readable cdk.tf.json.",
  PLUMB_CDKTF_UNKNOWN_TYPE: 'A resource of the plumb provider has a type plumb does not know.',
  PLUMB_CDKTF_META_ARGUMENT: 'A plumb resource uses a Terraform meta-argument plumb cannot honour (count, for_each, …).',
  PLUMB_CDKTF_DELIVERY_MISMATCH: 'Two files of one project state different deliveries in a CDKTF app (delivery is the project\'s).',
  PLUMB_CDKTF_REFERENCE: 'A `${…}` Terraform expression in a plumb resource cannot be resolved by plumb.',
  PLUMB_CDKTF_OTHER_PROVIDERS: "The app declares resources of other providers; plumb ignores them (information).",

  // The Terraform provider (docs/terraform.md)
  PLUMB_TF_FILE_MERGE_REQUEST: "A file resource under terraform declares `delivery { merge_request }`: terraform applies one resource per call, so the provider cannot gather a project's files in one merge request (use YAML or CDKTF through plumb apply).",
  PLUMB_TF_SINK_STDOUT: 'A token declared through the Terraform provider has sink {stdout = true}: the provider\'s standard output goes to Terraform\'s log.',
  PLUMB_TF_WRITE_ONLY_UNSUPPORTED: 'A secret setting was given to the Terraform provider by a Terraform without write-only attributes (older than 1.11): it would store the secret in its state.',
  PLUMB_TF_INTERPOLATION: 'A value given to the Terraform provider holds plumb\'s `${env:…}` or `${file:…}`, which plumb reads only in YAML (and CDKTF apps plumb runs); under Terraform use a variable or file().',
  PLUMB_TF_ALREADY_EXISTS: 'A Terraform resource would create an object (a group access token) that already exists on the instance and that its state does not record: import it instead of adopting it silently.',
  PLUMB_TF_TWO_OWNERS: 'Two resources of one Terraform run own the same object (a setting, a token, a file, a project\'s Pages); refused at plan, since every apply would undo the other\'s.',
  PLUMB_TF_TOKEN_BOTH: 'The Terraform provider block has both `token` and `token_env`: plumb would not know which credential to use.',
  PLUMB_TF_VALUE: "A value Terraform sent the provider cannot be decoded for the type its schema declares.",
  PLUMB_TF_DATA_SOURCE_ARGUMENT: 'An argument of the plumb_projects or plumb_groups data source is not usable: a group that is not a path or id, or an exclude entry that is not a full path or a pattern (* within a segment, ** at any depth).',

  // YAML and interpolation
  PLUMB_KEY_TOO_LONG: 'A key of the configuration is longer than 256 characters; it was not read.',
  PLUMB_YAML_SYNTAX: 'The file is not valid YAML; the diagnostic points at the first problem.',
  PLUMB_YAML_DUPLICATE_KEY: 'A key appears twice in one mapping of one file.',
  PLUMB_YAML_MERGE_KEY: 'A YAML merge key (`<<`) was used; plumb refuses it because it hides where values come from.',
  PLUMB_YAML_ALIAS_LIMIT: 'YAML anchors and aliases expand beyond the limits plumb accepts ("billion laughs").',
  PLUMB_INVISIBLE_CHARACTER: 'A key or value contains an invisible character (no-break space, zero-width joiner, …).',
  PLUMB_NUMBER_NOT_FINITE: 'A number is .inf or .nan, which no setting accepts.',
  PLUMB_NUMBER_UNSAFE: 'An integer is beyond 2^53 and would lose precision.',
  PLUMB_INTERPOLATION_SYNTAX: 'A `${…}` reference is malformed (only `${env:NAME}` and `${file:PATH}` exist).',
  PLUMB_ENV_MISSING: 'An environment variable named by `${env:NAME}` is not set.',
  PLUMB_SECRET_UNAVAILABLE: 'With --unavailable-secrets skip, a secret setting whose variable is not set in this pipeline is not compared (information).',
  PLUMB_ENV_EMPTY: 'An environment variable named by `${env:NAME}` is empty (write `${env:NAME:-}` to allow that).',
  PLUMB_FILE_EMPTY: 'A file named by `${file:PATH}` is empty (write `${file:PATH:-}` to allow that).',
  PLUMB_INTERPOLATION_NOT_ALLOWED: 'A `${env:…}`/`${file:…}` reference is written where plumb does not interpolate: the connection (url, token_env, ca_bundle, …), a setting that is not secret (the instance shows it), or a value that becomes part of a request (a branch, a source path, …); only write-only settings and a file\'s content may be interpolated.',
  PLUMB_INTERPOLATION_CREDENTIAL: 'A `${env:…}`/`${file:…}` reference reads a credential plumb or the CI uses (a token_env, PLUMB_TOKEN, CI_JOB_TOKEN, CI_REGISTRY_PASSWORD, CI_JOB_JWT*, …) or a copy of one; refused, and its value not used.',
  PLUMB_SECRET_TOO_SHORT: 'An interpolated value (or the access token) is shorter than 4 characters: too short to be masked in output safely.',

  // Shape of the configuration (the schema pass)
  PLUMB_UNKNOWN_KEY: 'A key the configuration format does not know at this place.',
  PLUMB_MISSING_FIELD: 'A required key is missing (an instance without url or token_env, …).',
  PLUMB_TYPE_MISMATCH: 'A value has the wrong type (a string for a boolean, an empty block for a mapping, …).',
  PLUMB_ENUM_VALUE: 'A value is not one of the values allowed here.',
  PLUMB_OUT_OF_RANGE: 'A number is outside the bounds the interface allows.',
  PLUMB_STRING_FORMAT: 'A string does not have the required form (a URL, a host name, a date, a name).',
  PLUMB_ARRAY_SIZE: 'A list has fewer or more items than allowed.',
  PLUMB_DUPLICATE_ITEM: 'A list names the same item twice.',
  PLUMB_SCHEMA: 'A value is not accepted here for a reason the other codes do not name.',
  PLUMB_DUPLICATE_RESOURCE: 'A setting, token, file or Pages block is defined in two places (or two files).',
  PLUMB_NOTHING_DECLARED: 'The configuration declares no instance.',

  // Instances
  PLUMB_URL_CREDENTIALS: "An instance URL carries a user name or password.",
  PLUMB_INSECURE_HTTP: 'An instance is reached over plain HTTP at a host that is not loopback, without allow_insecure_http.',
  PLUMB_DUPLICATE_INSTANCE_URL: 'Two instances have the same URL, spelled differently.',
  PLUMB_FILE_MISSING: 'A file the configuration names (CA bundle, file source) does not exist or cannot be read.',
  PLUMB_TOKEN_INLINE: "The instance's access token is written in the configuration instead of named by token_env.",
  PLUMB_UNKNOWN_RISK: 'allow_risky lists a risk id plumb does not know.',
  PLUMB_INSTANCE_UNKNOWN: '--instance names an instance the configuration does not declare.',
  PLUMB_TOKEN_ENV_MISSING: 'The environment variable named by token_env is not set.',
  PLUMB_CLIENT: 'The HTTP client for an instance cannot be set up (an unusable URL or CA bundle).',
  PLUMB_URL_NOT_ALLOWED: 'An instance URL is not one the token may be sent to: it is not in PLUMB_ALLOWED_URLS or --allow-url, not PLUMB_URL (nor CI_SERVER_URL in GitLab CI), and not loopback.',
  PLUMB_CA_BUNDLE_NOT_PEM: 'The ca_bundle file holds no PEM certificate (no -----BEGIN CERTIFICATE----- line).',
  PLUMB_STATE_BACKEND: 'The Terraform-state backend given by --state (or PLUMB_STATE) is not usable: not a state address, not on a pinned instance, unreachable, or the token was refused.',
  PLUMB_COMMENT: 'plumb comment cannot post the plan: not in a merge-request pipeline, no comment token (or an administrator token), or the service refused.',

  // Application settings
  PLUMB_UNKNOWN_SETTING: 'A key under settings is not an application setting plumb knows.',
  PLUMB_SETTING_REMOVED: 'A setting was removed from the interface; the instance ignores it.',
  PLUMB_SETTING_RESPONSE_NAME: 'A setting is written with the name responses use; updates use another name.',
  PLUMB_SETTING_DEPRECATED: 'A setting is deprecated; its replacement is named.',
  PLUMB_SETTING_READ_ONLY: 'A setting cannot be updated through the interface.',
  PLUMB_ALIAS_CONFLICT: 'A deprecated setting and its replacement (or two old names of one setting) are both declared.',
  PLUMB_SECRET_INLINE: 'A secret setting is written in clear instead of through ${env:…} or ${file:…}.',
  PLUMB_DEPENDENCY_MISSING: 'A setting another one requires (when enabled or set) is missing.',
  PLUMB_VISIBILITY_CONFLICT: 'A visibility level is both the default and restricted.',
  PLUMB_SETTING_NOT_RETURNED: 'The instance does not return a declared setting; plumb cannot compare it and leaves it alone.',
  PLUMB_API_REJECTED_SETTING: 'The instance rejected a declared setting value (400, with its message).',
  PLUMB_SETTINGS_PARTIAL: 'The settings update failed part-way; the diagnostic lists what the instance now holds.',
  PLUMB_SETTINGS_UPDATE_FAILED: 'The settings update failed and the instance holds none of the new values.',
  PLUMB_SETTINGS_WRITE_UNCERTAIN: 'The settings update reported a failure, but the values may have been written.',
  PLUMB_SETTINGS_OUTCOME_UNKNOWN: 'The settings update failed and reading the settings back failed too: the outcome is unknown.',
  PLUMB_SETTINGS_READBACK_FAILED: 'The settings update was accepted, but reading the settings back to verify it failed.',
  PLUMB_SETTING_NOT_CONVERGED: 'A setting still shows its old value after settings_verify_seconds of waiting for the cache.',

  // Group access tokens
  PLUMB_RESOURCE_REF: 'A group or project key is neither a numeric id nor a full path.',
  PLUMB_SELECTOR_SYNTAX: 'A selector key of `projects:` or `groups:` is not `GROUP/*` or `GROUP/**`, or its `exclude:` or `include_archived:` is malformed.',
  PLUMB_SELECTOR_PLACEHOLDER: 'A placeholder of a selector has no value for what it selects (`{project}` under `groups:`), stands where a value may not come from the instance (a sink command\'s program), is not one plumb knows (`{projct}`; in a file\'s content a warning, and only one typo from a placeholder), or stands in a key (a file path, a token name), where placeholders are not replaced.',
  PLUMB_SELECTOR_MATCHES_NOTHING: 'A selector matched no project or group of the instance at plan (a warning).',
  PLUMB_SELECTOR_MATCH_REFUSED: 'The instance listed a project or group whose path is not a plain path; the selector leaves it out (a warning).',
  PLUMB_BLOCKED_BY_MATCH: 'A change that runs after every other change of its instance (one that may end plumb\'s credential or revoke the tokens the others re-issue) is left out of the plan because a selector match of that instance could not be planned.',
  PLUMB_SELECTOR_OVERLAP: 'Two selectors declare the same setting, token, file or Pages field for one project or group, and no explicit entry overrides it.',
  PLUMB_TOKEN_SCOPE_UNKNOWN: 'A token scope is not one plumb knows (the instance may still accept it).',
  PLUMB_TOKEN_EXPIRY_BOTH: 'A token has both expires_at and a rotation policy.',
  PLUMB_TOKEN_EXPIRY_MISSING: 'A token has neither expires_at nor a rotation policy.',
  PLUMB_DATE_INVALID: 'A date is not a calendar date.',
  PLUMB_TOKEN_BEYOND_MAX_LIFETIME: "A token's lifetime or expires_at goes beyond the instance's declared max_personal_access_token_lifetime.",
  PLUMB_TOKENS_REVOKED_BY_LIMIT: 'A new max_personal_access_token_lifetime made the instance revoke tokens plumb manages (their sinks hold dead secrets).',
  PLUMB_TOKEN_FAMILY_REVOKED: 'The instance revoked a whole token family after a rotation was repeated (two applies at once, or a rotation outside plumb): the delivered secret does not work.',
  PLUMB_TOKEN_NAME_EMPTY: 'A token is declared with an empty name.',
  PLUMB_TOKEN_EXPIRES_IN_PAST: "A token's expires_at is not after today.",
  PLUMB_TOKEN_ROTATION_WINDOW: 'rotate_before_days is not smaller than lifetime_days.',
  PLUMB_TOKEN_OVERLAP: "rotation.overlap is not shorter than rotate_before_days, or is set on plumb's own credential (`self: true`).",
  PLUMB_TOKEN_SINK_MISSING: 'A token has no sink to deliver its secret to.',
  PLUMB_SINK_INVALID: 'A sink names none or more than one of file, command, stdout and ci_variable.',
  PLUMB_TOKEN_SINKS_BOTH: 'A token has both `sink:` and `sinks:`.',
  PLUMB_SINK_VARIABLE_OWNER: 'A ci_variable sink names neither or both of project and group.',
  PLUMB_SINK_VARIABLE_MASK: 'A ci_variable sink is hidden but not masked (a hidden variable is always masked).',
  PLUMB_SINK_INSTANCE_UNKNOWN: 'A ci_variable sink names an instance the configuration does not declare.',
  PLUMB_SINK_VARIABLE_SHARED: 'Two sinks deliver into the same CI/CD variable (owner, key and environment scope).',
  PLUMB_SINK_VARIABLE_UNUSABLE: "A ci_variable sink's project or group is missing, or plumb's credential may not write its variables.",
  PLUMB_SINK_PARTIAL: 'A new secret reached some of a token\'s sinks and not others.',
  PLUMB_TOKEN_SINK_FORBIDDEN: "A token's file sink is a configuration file, a repository file's source, or inside .git/: apply would write the secret over it.",
  PLUMB_TOKEN_SINK_SHARED: 'Two tokens deliver their secrets into the same file.',
  PLUMB_TOKEN_SINK_UNUSABLE: "A token's sink cannot receive a secret (a directory that does not exist, a command not found, …).",
  PLUMB_TOKEN_SELF_SCOPE: "The token marked as plumb's own credential lacks the scopes to rotate itself or list its group.",
  PLUMB_TOKEN_SELF_TWICE: "More than one token of an instance is marked as plumb's own credential.",
  PLUMB_TOKEN_SELF_ABSENT: "The token marked as plumb's own credential is not active on the instance.",
  PLUMB_TOKEN_SELF_NOT_CREDENTIAL: "A token marked self is not the one plumb authenticates with; self-rotation was refused.",
  PLUMB_TOKEN_SELF_MISMATCH: "Self-rotation rotated plumb's actual credential, which is another declared token than the one marked self.",
  PLUMB_TOKEN_SELF_LOST: "plumb's own credential was probably rotated but the new secret never arrived; plumb cannot authenticate any more.",
  PLUMB_TOKEN_ID_MISMATCH: 'A token pins an id that belongs to a token with another name.',
  PLUMB_TOKEN_ID_STALE: 'A token pins an id that is no longer active; plumb follows the rotation chain or says it cannot.',
  PLUMB_TOKEN_NAME_AMBIGUOUS: 'A token name matches several active tokens; pin the id to say which one is declared.',
  PLUMB_PRUNE_ALL_TOKENS: 'prune_access_tokens is on for a group that declares no token: apply would revoke all of them.',
  PLUMB_TOKEN_SECRET_NOT_RECEIVED: 'The instance issued a token but its secret never arrived; the next plan rotates it.',
  PLUMB_TOKEN_SECRET_NOT_DELIVERED: 'A new secret could not be delivered to its sink; what plumb did about it follows.',
  PLUMB_TOKEN_REVOKE_FAILED: 'A replaced token could not be revoked; the next plan revokes it.',
  PLUMB_TOKEN_OUTCOME_UNKNOWN: 'An issue or revocation ended without a clear answer; plumb re-read the group and says what it found.',
  PLUMB_SINK_FAILED: 'Delivering a secret to its sink failed (the file could not be written, the command failed or timed out).',

  // Repository files
  PLUMB_LOCK_PATH_DECLARED: "An instance's `lock:` names a file the configuration also declares under `files:`.",
  PLUMB_FILE_PATH_TRAVERSAL: 'A repository file path is not a plain relative path inside the repository.',
  PLUMB_FILE_CONTENT_BOTH: 'A repository file has both content and source.',
  PLUMB_FILE_CONTENT_MISSING: 'A repository file that should be present has neither content nor source.',
  PLUMB_FILE_BASE64: 'Content declared as base64 is not valid base64.',
  PLUMB_FILE_ABSENT_WITH_CONTENT: 'A repository file is declared `state: absent` and has content or a source.',
  PLUMB_FILE_BRANCH_NAME: 'A branch (or start_branch) of a repository file is not a name Git accepts.',
  PLUMB_FILE_START_BRANCH_SAME: "A repository file's start_branch is the branch it is written to.",
  PLUMB_FILE_COMMIT_TEMPLATE: 'A commit message template uses a placeholder other than {path}, {branch}, {project}, {action} (or Mustache `{{path}}`); `{{` and `}}` are literal braces.',
  PLUMB_FILE_OUTCOME_UNKNOWN: 'A file write failed and reading the file again failed too, so plumb cannot tell whether it was written.',
  PLUMB_FILE_START_BRANCH_MISSING: "A file's start_branch does not exist (and neither does the branch it would create).",
  PLUMB_FILE_BRANCH_MISSING: 'A branch a file is declared on does not exist, and the file declares no start_branch to create it from.',
  PLUMB_FILE_CONFLICT: 'A file was changed by another commit since the plan; plumb did not overwrite it.',
  PLUMB_FILE_SOURCE_CHANGED: "A file's local content changed between plan and apply; plumb did not write it.",
  PLUMB_FILE_WRITE_FAILED: 'The instance refused a file write, and reading the file again does not explain why.',
  PLUMB_FILE_PROJECT_ARCHIVED: 'Files are planned to change in an archived project, which the service keeps read-only: it refuses every write there, an administrator\'s too.',
  PLUMB_FILE_BRANCH_PROTECTED: 'The service refused a file write because the branch is protected against pushes by plumb\'s token ("You are not allowed to push into this branch").',
  PLUMB_FILE_PUSH_DENIED: "Files are planned to be committed to a branch plumb's token may not push to (a protected branch); delivered by merge request they would be proposed instead.",
  PLUMB_FILE_DELIVERY_INVALID: 'A `delivery:` names neither or both of `commit` and `merge_request`.',
  PLUMB_FILE_MR_FOREIGN_COMMIT: 'Someone else pushed to the branch of a merge request plumb keeps (or its branch moved since the plan): plumb leaves it untouched, and says so.',
  PLUMB_FILE_MR_BRANCHES: 'A project delivered by merge request declares its files on more than one branch; one merge request has one target branch.',

  // Pages
  PLUMB_PAGES_INTERPOLATED: 'pages_primary_domain is written with ${env:…} or ${file:…}; interpolated values are secrets, a domain is not.',
  PLUMB_PAGES_UNAVAILABLE: "A project's Pages answered 404: Pages is disabled on the instance, or for the project (its pages_access_level is disabled).",
  PLUMB_PAGES_PROJECT_NOT_FOUND: 'A project with a Pages block does not exist, or plumb\'s token cannot see it.',
  PLUMB_PAGES_FORBIDDEN: "A project's Pages answered 403: plumb's token has a role below Maintainer there (or lacks the api scope for a change).",
  PLUMB_PAGES_DOMAIN_NOT_ASSIGNED: 'pages_primary_domain is not one of the domains assigned to the project\'s Pages (the instance answered 400).',
  PLUMB_PAGES_PROJECT_ARCHIVED: "The instance refused a change of a project's Pages settings because the project is archived (the service keeps it read-only; unpublishing still works).",
  PLUMB_PAGES_REJECTED: 'The instance refused a Pages update for another reason (HTTPS forced while a domain has no certificate, …).',
  PLUMB_PAGES_NOT_PUBLISHED: 'A Pages block says published: true, but nothing is deployed; plumb cannot publish (a pipeline does).',
  PLUMB_PAGES_DOMAINS_UNREADABLE: "A project's Pages domains could not be listed for the expiry horizon (--expiring-within); its certificates and domains are not in it.",
  PLUMB_PAGES_FIELD_NOT_RETURNED: 'The instance does not return a declared Pages field (primary_domain before 17.8); plumb leaves it alone.',

  // CI/CD variables (the cicd_variable kind)
  PLUMB_CI_VARIABLE_KEY_INVALID: "A CI/CD variable's key has a character other than letters, digits and _, or is longer than 255 characters (the service refuses it).",
  PLUMB_CI_VARIABLE_SCOPE_INVALID: "A CI/CD variable's environment scope is empty, too long, or has a character the service refuses.",
  PLUMB_CI_VARIABLE_SHAPE: 'A CI/CD variable is declared with neither value: nor scopes:, with fields beside scopes:, or hidden and unmasked at once.',
  PLUMB_CI_VARIABLE_UNMASKABLE: "A masked CI/CD variable's value breaks the service's masking rules (at validate for a literal value, at plan for a secret one; the value is never shown).",
  PLUMB_CI_VARIABLE_VALUE_TOO_LONG: "A CI/CD variable's value is longer than the service allows (10,000 characters).",
  PLUMB_CI_VARIABLE_PRUNE_ALL: 'prune_variables is on for a project or group that declares no variable: apply deletes all of its variables.',
  PLUMB_CI_VARIABLE_OWNER_NOT_FOUND: "The project or group of declared CI/CD variables does not exist, or plumb's token cannot see it.",
  PLUMB_CI_VARIABLE_FORBIDDEN: "plumb's token may not manage the CI/CD variables there (Maintainer of a project, Owner of a group, or an administrator; the api scope).",
  PLUMB_CI_VARIABLE_REJECTED: 'The instance refused a CI/CD variable write (its message names the field); nothing was changed by that request.',
  PLUMB_CI_VARIABLE_NOT_AS_SENT: 'After a CI/CD variable write, the instance does not hold what was sent.',

  PLUMB_CLAIMED_TWICE: 'One thing on an instance is declared by two kinds (a CI/CD variable under variables: and as a token\'s ci_variable sink): each apply would overwrite the other\'s value.',

  // Plans and apply
  PLUMB_DEFAULTS_SHAPE: 'The `defaults:` block is not a mapping of settings, groups and projects (a connection field or another key is shared there).',
  PLUMB_TARGET_MATCHES_NOTHING: 'No declared resource matches the `--target` addresses given to plan, apply or drift.',
  PLUMB_KIND_NOT_MANAGED: 'The configuration declares a kind of resource this plumb validates but does not plan or apply yet.',
  PLUMB_PLAN_STALE: 'A resource changed on the instance since the saved plan was made.',
  PLUMB_PLAN_STALE_CONFIG: 'The configuration changed since the saved plan was made.',
  PLUMB_STATE_ENTRY_IGNORED: 'An entry of the state file does not fit (wrong shape, or a note about a token plumb does not manage) and is ignored.',
  PLUMB_PLAN_EDITED: 'A saved plan is not what the configuration and the live state yield: a change, payload, attribute, risk or gate was edited, added or removed (apply refuses the whole plan).',
  PLUMB_PLAN_INSTANCE_MISMATCH: "A saved plan names an instance URL other than the configuration's (or an instance it does not declare); apply connects only where the configuration says.",
  PLUMB_PLAN_STALE_SECRET: 'A secret value is not the one the saved plan was made with.',
  PLUMB_PLAN_UNKNOWN_TARGET: 'The saved plan names a resource or instance the configuration does not select.',
  PLUMB_RISK_NOT_ACCEPTED: 'A risky change (it can lock people or plumb out) is neither in allow_risky nor allowed by --allow-risky.',
  PLUMB_DESTROY_NOT_ACCEPTED: 'A destroy (unpublishing Pages) is neither opted into by its resource in the configuration nor allowed by --allow-destroy.',
  PLUMB_APPLY_SKIPPED: 'A change was not applied because a change it depends on was not applied.',
  PLUMB_INTERRUPTED: 'A signal (SIGINT, SIGTERM) stopped plan, drift or apply while it read the instance, before any write; nothing was changed.',
  PLUMB_APPLY_INTERRUPTED: 'A signal (SIGINT, SIGTERM) interrupted apply: it started no change after it and reports which were not started, and which were still in flight when it stopped waiting.',
  PLUMB_INTERNAL: 'An unexpected failure inside plumb; please report it.',

  // The HTTP client (src/api/errors.ts)
  PLUMB_API_BAD_REQUEST: 'The instance answered 400: it refused the request as malformed or invalid.',
  PLUMB_API_UNAUTHORIZED: 'The instance answered 401: the token is missing, invalid, expired or revoked.',
  PLUMB_API_FORBIDDEN: 'The instance answered 403: the token lacks the role or scope for this call.',
  PLUMB_API_NOT_FOUND: 'The instance answered 404: the group, project or resource does not exist or is not visible.',
  PLUMB_API_METHOD_NOT_ALLOWED: 'The instance answered 405: the call is not allowed on this resource.',
  PLUMB_API_CONFLICT: 'The instance answered 409: the request conflicts with the current state.',
  PLUMB_API_RATE_LIMITED: 'The instance answered 429 and retries ran out.',
  PLUMB_API_HTTP: 'The instance answered with an unexpected HTTP status.',
  PLUMB_API_SERVER: 'The instance answered 5xx and retries ran out.',
  PLUMB_API_AMBIGUOUS: 'A write may or may not have happened (the connection broke after sending it); it was not retried.',
  PLUMB_API_NETWORK: 'The instance could not be reached (DNS, connection refused, TLS).',
  PLUMB_API_TIMEOUT: 'The instance did not answer in time.',
  PLUMB_API_INVALID_RESPONSE: 'The instance answered with a body plumb cannot read.',
  PLUMB_API_INSECURE_URL: 'The client refused a URL before any request (plain HTTP to a remote host, credentials in it).',
  PLUMB_API_BUDGET_EXHAUSTED: 'The request budget of the run (`plumb report --max-requests`) was spent: the request was not sent, and what it would have read is reported as not checked.',
} as const satisfies Record<string, string>;

declare const KIND_CODE: unique symbol;

/**
 * A code a kind outside this registry declares itself, with its meaning (`KindEntry.ownCodes`: a
 * kind that is not built in, such as a test's fifth kind, test/fixtures/kinds/). Only
 * `ownCodes` (./own-codes.ts) makes one, so a plain string still does not compile as a code.
 */
export type KindCode = string & { readonly [KIND_CODE]: true };

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES | KindCode;

export function isDiagnosticCode(code: string): code is DiagnosticCode {
  return Object.hasOwn(DIAGNOSTIC_CODES, code);
}
