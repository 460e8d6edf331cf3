/**
 * The application settings of `shared/spec/application-settings.md`, one entry per setting name of
 * section 2.1 (lists expanded), plus the settings the spec lists as removed from the interface.
 *
 * Conventions of this file:
 * - Names, types, bounds, defaults, tiers and versions are taken from the spec row; a fact the spec
 *   does not state is left out rather than guessed. Decisions about odd rows are in `note`.
 * - `tiers` combines the tags of the row, of the section heading ("Search engine (all [HT])") and
 *   the spec's list "Fields only returned on higher tiers" (those also carry `tierApplies`).
 * - `secret` marks keys, passwords, tokens, secrets and values the spec says are stored encrypted.
 *   Public identifiers are deliberately NOT secret: site keys (captcha_site_key), access key IDs
 *   (managed_k8s_access_key_id, search_engine_aws_access_key), account and application IDs
 *   (chat_app_id, event_tracking_app_id, tracker_connect_application_key) and certificates
 *   (external_auth_client_cert). Plumb shows and diffs them like any other value.
 * - `default` appears only where the spec states one; "off by default" on a boolean is `false`, on
 *   a number it is left out (the stored value that means "off" is not shown).
 */
import type { ResponseOnlyField, SettingRule, SettingSpec, Tier } from './types.js';

type Entry = Omit<SettingSpec, 'section'>;

/** Attaches the section heading (and the heading's tier tags, if any) to the rows of one table. */
function table(section: string, entries: readonly Entry[], headingTiers?: readonly Tier[]): SettingSpec[] {
  // In place and by index: the rows are this file's own literals, written only here, and a copy of
  // each of the ~400 (or an iterator result per row, in code that runs cold) was garbage for every
  // `plumb validate` to build and its first collections to copy.
  const rows = entries as { -readonly [K in keyof SettingSpec]?: SettingSpec[K] }[];
  for (let i = 0; i < rows.length; i++) {
    const e = rows[i]!;
    e.section = section;
    if (headingTiers) e.tiers = [...new Set([...(e.tiers ?? []), ...headingTiers])];
  }
  return entries as SettingSpec[];
}

const VISIBILITY = ['private', 'internal', 'public'] as const;
const HT: readonly Tier[] = ['HT'];
const TT: readonly Tier[] = ['TT'];
const SM_HT: readonly Tier[] = ['SM', 'HT'];
const SM_TT: readonly Tier[] = ['SM', 'TT'];
const KEY_RESTRICTION_BITS = 'minimum bit length of an uploaded key; 0 no restriction (default); -1 disables the key type';
const KEY_RESTRICTION_CURVE = 'minimum curve size in bits; 0 no restriction (default); -1 disables the key type';
const RUNNER_TOKEN_EXPIRY = 'seconds; minimum 7200';
const FOUR_HUNDRED_DAYS =
  'The 400-day extension behind the feature flag buffered_token_expiration_limit (17.6+) is not ' +
  'modelled: maximum is 365, and plumb cannot see the flag.';

// ---------------------------------------------------------------------------------------------
// 2.1 Access, accounts, sign-in
// ---------------------------------------------------------------------------------------------
const ACCESS = table('Access, accounts, sign-in', [
  { name: 'admin_mode', type: 'boolean', description: 'administrators re-authenticate for administrative tasks' },
  { name: 'admin_notification_email', type: 'string', description: 'deprecated; use abuse_notification_email', deprecated: { replacement: 'abuse_notification_email' } },
  { name: 'abuse_notification_email', type: 'string', description: 'address receiving abuse reports' },
  { name: 'notify_on_unknown_sign_in', type: 'boolean', description: 'notify users on sign-in from an unknown IP' },
  { name: 'after_sign_out_path', type: 'string', description: 'redirect after logout' },
  { name: 'after_sign_up_text', type: 'string', description: 'text shown after sign-up' },
  { name: 'email_restrictions_enabled', type: 'boolean', description: 'restrict sign-up by email; requires email_restrictions' },
  { name: 'email_restrictions', type: 'string', description: 'regex checked against the registration email; required when email_restrictions_enabled', note: 'plumb refuses a value that is not a regular expression (checked with ECMAScript syntax, close to the service\'s for the common cases).' },
  { name: 'domain_denylist_enabled', type: 'boolean', description: 'block sign-ups from listed domains; requires domain_denylist' },
  { name: 'domain_denylist', type: 'string[]', description: 'blocked sign-up email domains, wildcards allowed' },
  { name: 'domain_allowlist', type: 'string[]', default: null, description: 'only these email domains may sign up; null means no restriction' },
  { name: 'signup_enabled', type: 'boolean', default: true, description: 'new users may sign up' },
  { name: 'signin_enabled', type: 'boolean', description: 'deprecated; use password_authentication_enabled_for_web', deprecated: { replacement: 'password_authentication_enabled_for_web' }, note: 'The spec types this deprecated alias as string; plumb types it like its target (boolean), so `false` validates and compares equal to the boolean the instance returns.' },
  { name: 'sign_in_restrictions', type: 'hash', description: 'application sign-in restrictions (inner structure not shown)' },
  { name: 'password_authentication_enabled_for_web', type: 'boolean', default: true, description: 'password sign-in on the web interface' },
  { name: 'password_authentication_enabled_for_git', type: 'boolean', default: true, description: 'password authentication for Git over HTTP(S)' },
  { name: 'disable_password_authentication_for_users_with_sso_identities', type: 'boolean', default: false, description: 'users with an SSO identity cannot sign in with a password (web only)' },
  { name: 'minimum_password_length', type: 'integer', tiers: HT, description: 'minimum password length' },
  { name: 'password_number_required', type: 'boolean', tiers: HT, description: 'passwords must contain a number' },
  { name: 'password_symbol_required', type: 'boolean', tiers: HT, description: 'passwords must contain a symbol' },
  { name: 'password_uppercase_required', type: 'boolean', tiers: HT, description: 'passwords must contain an uppercase letter' },
  { name: 'password_lowercase_required', type: 'boolean', tiers: HT, description: 'passwords must contain a lowercase letter' },
  { name: 'max_login_attempts', type: 'integer', description: 'sign-in attempts before lock-out' },
  { name: 'failed_login_attempts_unlock_period_in_minutes', type: 'integer', description: 'minutes before a locked-out account unlocks' },
  { name: 'remember_me_enabled', type: 'boolean', since: '16.0', description: 'offer "remember me" at sign-in' },
  { name: 'session_expire_delay', type: 'integer', restartRequired: true, description: 'session duration in minutes; restart required to apply' },
  { name: 'session_expire_from_init', type: 'boolean', description: 'sessions expire from creation rather than from last activity' },
  { name: 'require_two_factor_authentication', type: 'boolean', description: 'require two-factor authentication for all users; requires two_factor_grace_period' },
  { name: 'two_factor_grace_period', type: 'integer', description: 'hours users may skip two-factor setup; required when require_two_factor_authentication' },
  { name: 'require_admin_two_factor_authentication', type: 'boolean', description: 'require two-factor authentication for administrators' },
  { name: 'require_admin_approval_after_user_signup', type: 'boolean', description: 'new sign-ups stay pending until an administrator approves them' },
  { name: 'require_email_verification_on_account_locked', type: 'boolean', description: 'require email verification when an account is locked' },
  { name: 'email_confirmation_setting', type: 'string', enum: ['off', 'soft', 'hard'], description: 'email confirmation mode for new users' },
  { name: 'invisible_captcha_enabled', type: 'boolean', default: false, description: 'invisible CAPTCHA on sign-up; off by default' },
  { name: 'captcha_enabled', type: 'boolean', description: 'CAPTCHA on sign-up; requires captcha_private_key and captcha_site_key' },
  { name: 'login_captcha_protection_enabled', type: 'boolean', description: 'CAPTCHA on sign-in' },
  { name: 'captcha_private_key', type: 'string', secret: true, description: 'CAPTCHA private key; required when captcha_enabled' },
  { name: 'captcha_site_key', type: 'string', description: 'CAPTCHA site key (public); required when captcha_enabled' },
  { name: 'spam_filter_enabled', type: 'boolean', description: 'spam filter; requires spam_filter_api_key' },
  { name: 'spam_filter_api_key', type: 'string', secret: true, description: 'spam filter API key; required when spam_filter_enabled' },
  { name: 'spam_check_endpoint_enabled', type: 'boolean', default: false, description: 'use the external spam check endpoint' },
  { name: 'spam_check_endpoint_url', type: 'string', pattern: '^(?:(?:grpc|tls)://.+)?$', description: 'spam check endpoint; URI scheme grpc or tls (tls forces encryption)', note: 'Pattern enforces the grpc:// or tls:// scheme and allows the empty string (to clear the value).' },
  { name: 'spam_check_api_key', type: 'string', secret: true, description: 'API key of the spam check endpoint' },
  { name: 'unique_ips_limit_enabled', type: 'boolean', description: 'limit sign-ins from distinct IPs; requires unique_ips_limit_per_user and unique_ips_limit_time_window' },
  { name: 'unique_ips_limit_per_user', type: 'integer', description: 'distinct IPs per user; required when unique_ips_limit_enabled' },
  { name: 'unique_ips_limit_time_window', type: 'integer', description: 'window in seconds for the IP limit; required when unique_ips_limit_enabled' },
  { name: 'deactivate_dormant_users', type: 'boolean', description: 'deactivate users that have been dormant' },
  { name: 'deactivate_dormant_users_period', type: 'integer', description: 'days of inactivity before a user counts as dormant' },
  { name: 'delete_unconfirmed_users', type: 'boolean', tiers: SM_HT, tierApplies: 'both', default: false, since: '16.1', description: 'delete users that never confirmed their email' },
  { name: 'unconfirmed_users_delete_after_days', type: 'integer', tiers: SM_HT, tierApplies: 'both', minimum: 1, default: 7, description: 'days before unconfirmed users are deleted' },
  { name: 'user_deactivation_emails_enabled', type: 'boolean', description: 'email users when their account is deactivated' },
  { name: 'user_default_external', type: 'boolean', description: 'new users are external by default' },
  { name: 'user_default_internal_regex', type: 'string', description: 'regex of emails of new users that stay internal when user_default_external is on' },
  { name: 'user_defaults_to_private_profile', type: 'boolean', default: false, description: 'new users get a private profile' },
  { name: 'allow_account_deletion', type: 'boolean', tiers: HT, since: '16.1', description: 'users may delete their own account' },
  { name: 'updating_name_disabled_for_users', type: 'boolean', description: 'users cannot change their name' },
  { name: 'can_create_group', type: 'boolean', default: true, description: 'users may create groups' },
  { name: 'top_level_group_creation_enabled', type: 'boolean', default: true, description: 'users may create top-level groups' },
  { name: 'allow_project_creation_for_guest_and_below', type: 'boolean', default: true, since: '16.8', description: 'users with Guest role or below may create projects' },
  { name: 'default_project_creation', type: 'integer', enum: [0, 1, 2, 3, 4], description: 'who may create projects in groups: 0 no one, 1 Maintainers, 2 Developers, 3 Administrators, 4 Owners' },
  { name: 'allow_group_owners_to_manage_ldap', type: 'boolean', tiers: HT, description: 'group owners may manage LDAP group links' },
  { name: 'lock_memberships_to_saml', type: 'boolean', tiers: HT, tierApplies: 'update', description: 'memberships are managed only through SAML group links', note: 'Untagged in the table; HT from the list of higher-tier fields, which marks it "(update)".' },
  { name: 'disable_invite_members', type: 'boolean', description: 'disable inviting members' },
  { name: 'allow_bypass_placeholder_confirmation', type: 'boolean', since: '18.0', description: 'administrators may skip confirmation when reassigning placeholder users' },
  { name: 'enforce_terms', type: 'boolean', description: 'users must accept the terms of service; requires terms' },
  { name: 'terms', type: 'text', description: 'Markdown terms of service; required when enforce_terms' },
  { name: 'user_oauth_applications', type: 'boolean', description: 'users may register OAuth applications' },
  { name: 'disable_admin_oauth_scopes', type: 'boolean', description: 'block admins from connecting to non-trusted OAuth 2.0 apps with scopes api, read_api, read_repository, write_repository, read_registry, write_registry, sudo' },
  { name: 'disabled_oauth_sign_in_sources', type: 'string[]', description: 'OAuth sign-in sources that are disabled' },
  { name: 'external_auth_client_cert', type: 'string', description: 'client certificate for the external authorization service; requires external_auth_client_key' },
  { name: 'external_auth_client_key', type: 'string', secret: true, description: 'private key of the client certificate; required with external_auth_client_cert; stored encrypted' },
  { name: 'external_auth_client_key_pass', type: 'string', secret: true, description: 'passphrase of the client key; stored encrypted' },
  { name: 'external_authorization_service_enabled', type: 'boolean', description: 'use the external authorization service; requires its default_label, timeout and url' },
  { name: 'external_authorization_service_default_label', type: 'string', description: 'default classification label; required when the service is enabled' },
  { name: 'external_authorization_service_timeout', type: 'float', minimum: 0.001, maximum: 10, multipleOf: 0.001, description: 'seconds (0.001-10, step 0.001); access is denied on timeout; required when the service is enabled', note: 'multipleOf 0.001 on a float: validators must compare with a tolerance (ajv: multipleOfPrecision).' },
  { name: 'external_authorization_service_url', type: 'string', description: 'URL of the external authorization service; required when the service is enabled' },
  { name: 'globally_allowed_ips', type: 'string', description: 'comma-separated IPs and CIDRs always allowed inbound' },
  { name: 'geo_node_allowed_ips', type: 'string', tiers: SM_HT, tierApplies: 'both', description: 'comma-separated IPs and CIDRs allowed to reach Geo nodes', note: 'The spec says "required", which contradicts section 1 (every setting is optional in an update); treated as optional, no rule.' },
  { name: 'geo_status_timeout', type: 'integer', tiers: SM_HT, tierApplies: 'both', description: 'seconds before a Geo status request times out' },
  { name: 'git_two_factor_session_expiry', type: 'integer', tiers: HT, description: 'minutes a two-factor Git session lasts' },
  { name: 'rsa_key_restriction', type: 'integer', minimum: -1, default: 0, description: KEY_RESTRICTION_BITS },
  { name: 'dsa_key_restriction', type: 'integer', minimum: -1, default: 0, description: KEY_RESTRICTION_BITS },
  { name: 'ecdsa_key_restriction', type: 'integer', minimum: -1, default: 0, description: KEY_RESTRICTION_CURVE },
  { name: 'ecdsa_sk_key_restriction', type: 'integer', minimum: -1, default: 0, description: KEY_RESTRICTION_CURVE },
  { name: 'ed25519_key_restriction', type: 'integer', minimum: -1, default: 0, description: KEY_RESTRICTION_CURVE },
  { name: 'ed25519_sk_key_restriction', type: 'integer', minimum: -1, default: 0, description: KEY_RESTRICTION_CURVE },
  { name: 'max_personal_access_token_lifetime', type: 'integer', tiers: SM_TT, minimum: 1, maximum: 365, default: null, description: 'days; blank means 365; lowering it revokes tokens beyond the limit', note: `Default blank (null), which means 365. ${FOUR_HUNDRED_DAYS}` },
  { name: 'max_ssh_key_lifetime', type: 'integer', tiers: SM_TT, minimum: 1, maximum: 365, description: 'maximum SSH key lifetime in days', note: `The spec gives the maximum only through "same 400-day extension" (i.e. 365 by default). ${FOUR_HUNDRED_DAYS}` },
  { name: 'require_personal_access_token_expiry', type: 'boolean', since: '17.3', description: 'personal access tokens must have an expiry date' },
  { name: 'service_access_tokens_expiration_enforced', type: 'boolean', description: 'service account tokens must have an expiry date' },
  { name: 'personal_access_token_prefix', type: 'string', description: 'prefix of generated personal access tokens' },
  { name: 'disable_personal_access_tokens', type: 'boolean', tiers: SM_HT, tierApplies: 'both', description: 'disable personal access tokens', note: 'Cannot be re-enabled through the interface once set (known issue of the service); plumb should warn before applying true.' },
  { name: 'disable_feed_token', type: 'boolean', description: 'disable RSS/calendar feed tokens' },
  { name: 'inactive_resource_access_tokens_delete_after_days', type: 'integer', default: 30, description: 'days after which inactive resource access tokens are deleted' },
  { name: 'runner_token_expiration_interval', type: 'integer', minimum: 7200, description: `instance runner authentication token expiry; ${RUNNER_TOKEN_EXPIRY}` },
  { name: 'group_runner_token_expiration_interval', type: 'integer', minimum: 7200, description: `group runner authentication token expiry; ${RUNNER_TOKEN_EXPIRY}` },
  { name: 'project_runner_token_expiration_interval', type: 'integer', minimum: 7200, description: `project runner authentication token expiry; ${RUNNER_TOKEN_EXPIRY}` },
  { name: 'valid_runner_registrars', type: 'string[]', enum: ['group', 'project'], description: 'who may register runners: [], [group], [project] or [group, project]' },
  { name: 'allow_runner_registration_token', type: 'boolean', default: true, description: 'allow runner registration tokens' },
  { name: 'update_runner_versions_enabled', type: 'boolean', description: 'fetch runner release data to show upgrade status' },
  { name: 'shared_runners_enabled', type: 'boolean', description: 'shared runners for new projects; requires shared_runners_text and shared_runners_minutes' },
  { name: 'shared_runners_minutes', type: 'integer', tiers: HT, description: 'compute minutes per group per month; required when shared_runners_enabled' },
  { name: 'shared_runners_text', type: 'string', description: 'text about shared runners; required when shared_runners_enabled' },
]);

// ---------------------------------------------------------------------------------------------
// 2.1 Visibility, defaults, content
// ---------------------------------------------------------------------------------------------
const VISIBILITY_DEFAULTS = table('Visibility, defaults, content', [
  { name: 'default_group_visibility', type: 'string', enum: VISIBILITY, default: 'private', description: 'visibility of new groups; cannot be a level in restricted_visibility_levels' },
  { name: 'default_project_visibility', type: 'string', enum: VISIBILITY, default: 'private', description: 'visibility of new projects; cannot be a level in restricted_visibility_levels' },
  { name: 'default_snippet_visibility', type: 'string', enum: VISIBILITY, default: 'private', description: 'visibility of new snippets' },
  { name: 'restricted_visibility_levels', type: 'string[]', enum: VISIBILITY, default: null, description: 'visibility levels non-admins cannot use; cannot include the default group/project visibility' },
  { name: 'default_projects_limit', type: 'integer', default: 100000, description: 'projects per user' },
  { name: 'default_branch_name', type: 'string', description: 'initial branch name of new repositories' },
  { name: 'default_branch_protection', type: 'integer', description: 'deprecated 17.0; use default_branch_protection_defaults', deprecated: { since: '17.0', replacement: 'default_branch_protection_defaults' } },
  { name: 'default_branch_protection_defaults', type: 'hash', since: '17.0', default: { allowed_to_push: [{ access_level: 40 }], allow_force_push: false, allowed_to_merge: [{ access_level: 40 }] }, description: 'default branch protection: allowed_to_push and allowed_to_merge (arrays of {access_level}), allow_force_push', note: 'Options not shown beyond the response shape {allowed_to_push: [{access_level}], allow_force_push: boolean, allowed_to_merge: [{access_level}]}. Default: that shape with the real service\'s values (Maintainers push and merge, no force push). A partial update changes only the keys it sends.' },
  { name: 'group_owners_can_manage_default_branch_protection', type: 'boolean', tiers: SM_HT, tierApplies: 'both', description: 'group owners may change default branch protection' },
  { name: 'default_project_deletion_protection', type: 'boolean', tiers: SM_HT, tierApplies: 'both', default: false, description: 'only administrators may delete projects' },
  { name: 'deletion_adjourned_period', type: 'integer', minimum: 1, maximum: 90, default: 30, description: 'days before a project or group marked for deletion is deleted (1-90)' },
  { name: 'default_preferred_language', type: 'string', description: 'default interface language' },
  { name: 'default_ci_config_path', type: 'string', description: 'default CI configuration path of new projects' },
  { name: 'default_artifacts_expire_in', type: 'string', description: 'default artifact expiry (human-readable duration)' },
  { name: 'default_syntax_highlighting_theme', type: 'integer', description: 'default syntax highlighting theme ID (IDs not shown)' },
  { name: 'default_dark_syntax_highlighting_theme', type: 'integer', description: 'default dark syntax highlighting theme ID (IDs not shown)' },
  { name: 'first_day_of_week', type: 'integer', enum: [0, 1, 6], default: 0, description: 'first day of the week: 0 Sunday, 1 Monday, 6 Saturday' },
  { name: 'home_page_url', type: 'string', description: 'redirect for signed-out visitors of the home page' },
  { name: 'help_page_hide_commercial_content', type: 'boolean', description: 'hide commercial content on the help page' },
  { name: 'help_page_support_url', type: 'string', description: 'support link on the help page' },
  { name: 'help_page_documentation_base_url', type: 'string', description: 'base URL of the documentation links' },
  { name: 'help_page_text', type: 'string', description: 'custom text on the help page' },
  { name: 'hide_third_party_offers', type: 'boolean', description: 'hide third-party offers' },
  { name: 'html_emails_enabled', type: 'boolean', description: 'send HTML emails' },
  { name: 'email_additional_text', type: 'string', tiers: HT, description: 'text appended to every email' },
  { name: 'email_author_in_body', type: 'boolean', description: 'put the author name in the email body' },
  { name: 'commit_email_hostname', type: 'string', description: 'host name of private commit emails' },
  { name: 'custom_http_clone_url_root', type: 'string', description: 'custom root of HTTP(S) clone URLs' },
  { name: 'enabled_git_access_protocol', type: 'string', enum: ['ssh', 'http', 'all'], description: 'Git access protocols allowed: ssh, http or all', note: 'The value "all" exists since 16.9.' },
  { name: 'local_markdown_version', type: 'integer', description: 'increase to invalidate cached Markdown' },
  { name: 'time_tracking_limit_to_hours', type: 'boolean', default: false, description: 'show time tracking in hours only' },
  { name: 'whats_new_variant', type: 'string', enum: ['all_tiers', 'current_tier', 'disabled'], description: '"What\'s new" content shown' },
  { name: 'security_txt_content', type: 'string', since: '16.7', description: 'content of /.well-known/security.txt' },
  { name: 'user_show_add_ssh_key_message', type: 'boolean', description: 'remind users without an SSH key to add one' },
  { name: 'performance_bar_allowed_group_id', type: 'string', description: 'deprecated; use performance_bar_allowed_group_path', deprecated: { replacement: 'performance_bar_allowed_group_path' } },
  { name: 'performance_bar_allowed_group_path', type: 'string', description: 'group whose members may use the performance bar' },
  { name: 'performance_bar_enabled', type: 'boolean', description: 'deprecated; to disable, pass performance_bar_allowed_group_path as nil', deprecated: { note: 'pass performance_bar_allowed_group_path as nil' } },
  { name: 'maintenance_mode', type: 'boolean', tiers: HT, description: 'non-admins get read-only access' },
  { name: 'maintenance_mode_message', type: 'string', tiers: HT, description: 'banner shown in maintenance mode' },
  { name: 'enforce_pipl_compliance', type: 'boolean', description: 'enforce PIPL compliance' },
  { name: 'usage_ping_enabled', type: 'boolean', description: 'weekly usage reporting' },
  { name: 'include_optional_metrics_in_service_ping', type: 'boolean', since: '16.10', description: 'include optional metrics in usage reporting' },
  { name: 'version_check_enabled', type: 'boolean', description: 'check for new service versions' },
  { name: 'suggest_pipeline_enabled', type: 'boolean', description: 'suggest adding a pipeline to new projects' },
  { name: 'enable_artifact_external_redirect_warning_page', type: 'boolean', description: 'warn before redirecting to externally hosted artifact pages' },
  { name: 'vscode_extension_marketplace', type: 'hash', description: 'extension marketplace settings of the web IDE (inner structure not shown)' },
  { name: 'assistant_features_enabled', type: 'boolean', tiers: SM_HT, tierApplies: 'both', since: '16.10', description: 'enable assistant features' },
  { name: 'lock_assistant_features_enabled', type: 'boolean', tiers: SM_HT, tierApplies: 'both', since: '16.10', description: 'groups cannot override assistant_features_enabled' },
  { name: 'use_columnar_db_for_analytics', type: 'boolean', tiers: HT, tierApplies: 'both', description: 'use the columnar database for analytics; needs the database configured' },
  { name: 'secret_push_protection_available', type: 'boolean', tiers: TT, tierApplies: 'read', description: 'secret push protection may be enabled in projects' },
  { name: 'silent_mode_enabled', type: 'boolean', default: false, description: 'silent mode: suppress outbound communication' },
  { name: 'silent_admin_exports_enabled', type: 'boolean', default: false, since: '17.0', description: 'administrator exports send no notifications' },
  { name: 'service_dedicated_instance', type: 'boolean', description: 'instance provisioned as dedicated', note: 'Spec row "gitlab_dedicated_instance replacement: service_dedicated_instance": the setting is service_dedicated_instance (the old name is not part of the interface).' },
  { name: 'service_environment_toolkit_instance', type: 'boolean', description: 'instance provisioned with the environment toolkit' },
]);

// ---------------------------------------------------------------------------------------------
// 2.1 Integrations and external services
// ---------------------------------------------------------------------------------------------
const INTEGRATIONS = table('Integrations and external services', [
  { name: 'allow_all_integrations', type: 'boolean', tiers: TT, tierApplies: 'both', description: 'all integrations allowed; false restricts to allowed_integrations' },
  { name: 'allowed_integrations', type: 'string[]', tiers: TT, tierApplies: 'both', description: 'integrations allowed when allow_all_integrations is false' },
  { name: 'allow_local_requests_from_hooks_and_services', type: 'boolean', description: 'deprecated; use allow_local_requests_from_web_hooks_and_services', deprecated: { replacement: 'allow_local_requests_from_web_hooks_and_services' } },
  { name: 'allow_local_requests_from_web_hooks_and_services', type: 'boolean', description: 'webhooks and integrations may reach the local network' },
  { name: 'allow_local_requests_from_system_hooks', type: 'boolean', description: 'system hooks may reach the local network' },
  { name: 'outbound_local_requests_whitelist', type: 'string[]', readOnly: true, description: 'trusted domains or IPs for local requests; cannot currently be updated' },
  { name: 'dns_rebinding_protection_enabled', type: 'boolean', description: 'DNS rebinding protection' },
  { name: 'asset_proxy_enabled', type: 'boolean', restartRequired: true, description: 'proxy assets; requires asset_proxy_url; restart required' },
  { name: 'asset_proxy_secret_key', type: 'string', secret: true, restartRequired: true, description: 'shared secret with the asset proxy; restart required' },
  { name: 'asset_proxy_url', type: 'string', restartRequired: true, description: 'URL of the asset proxy; required when asset_proxy_enabled; restart required' },
  { name: 'asset_proxy_whitelist', type: 'string|string[]', description: 'deprecated; use asset_proxy_allowlist', deprecated: { replacement: 'asset_proxy_allowlist' } },
  { name: 'asset_proxy_allowlist', type: 'string|string[]', restartRequired: true, description: 'domains not proxied, wildcards allowed; restart required' },
  { name: 'diagram_editor_enabled', type: 'boolean', default: true, description: 'diagram editor integration; requires diagram_editor_url' },
  { name: 'diagram_editor_url', type: 'string', description: 'URL of the diagram editor; required when diagram_editor_enabled' },
  { name: 'uml_diagram_enabled', type: 'boolean', default: false, description: 'UML diagram rendering; requires uml_diagram_url' },
  { name: 'uml_diagram_url', type: 'string', description: 'URL of the UML diagram server; required when uml_diagram_enabled' },
  { name: 'diagram_render_enabled', type: 'boolean', default: false, description: 'diagram rendering service; requires diagram_render_url' },
  { name: 'diagram_render_url', type: 'string', description: 'URL of the diagram rendering service; required when diagram_render_enabled' },
  { name: 'diagram_render_formats', type: 'object', keys: ['bpmn', 'blockdiag', 'excalidraw'], description: 'format name to boolean (bpmn, blockdiag, excalidraw)', note: 'Object of booleans keyed by format; other keys are rejected.' },
  { name: 'cloud_ide_enabled', type: 'boolean', default: false, description: 'cloud IDE integration; requires cloud_ide_url' },
  { name: 'cloud_ide_url', type: 'string', description: 'URL of the cloud IDE; required when cloud_ide_enabled' },
  { name: 'code_intel_enabled', type: 'boolean', default: false, description: 'code intelligence integration; requires code_intel_url' },
  { name: 'code_intel_public_only', type: 'boolean', default: true, description: 'code intelligence only for public projects' },
  { name: 'code_intel_url', type: 'string', description: 'URL of the code intelligence service; required when code_intel_enabled' },
  { name: 'dashboard_enabled', type: 'boolean', description: 'external dashboard integration', note: 'From the row "dashboard_enabled, dashboard_url | boolean, string" (types paired by position).' },
  { name: 'dashboard_url', type: 'string', description: 'URL of the external dashboard', note: 'From the row "dashboard_enabled, dashboard_url | boolean, string" (types paired by position).' },
  { name: 'avatar_service_enabled', type: 'boolean', description: 'use the external avatar service' },
  { name: 'metrics_exporter_enabled', type: 'boolean', description: 'metrics exporter' },
  { name: 'tracker_connect_application_key', type: 'string', description: 'OAuth application ID of the tracker connect app (an identifier, not secret)' },
  { name: 'tracker_connect_public_key_storage_enabled', type: 'boolean', description: 'tracker connect public key storage' },
  { name: 'tracker_connect_proxy_url', type: 'string', description: 'proxy URL of the tracker connect app' },
  { name: 'tracker_connect_additional_audience_url', type: 'string', description: 'additional audience URL of the tracker connect app; shown in responses', note: 'The spec adds "shown in responses" without saying more; treated as an ordinary updatable setting.' },
  { name: 'chat_app_enabled', type: 'boolean', description: 'chat app integration; requires chat_app_id, chat_app_secret, chat_app_signing_secret, chat_app_verification_token' },
  { name: 'chat_app_id', type: 'string', description: 'chat app ID (an identifier, not secret); required when chat_app_enabled' },
  { name: 'chat_app_secret', type: 'string', secret: true, description: 'chat app client secret; required when chat_app_enabled' },
  { name: 'chat_app_signing_secret', type: 'string', secret: true, description: 'chat app signing secret; required when chat_app_enabled' },
  { name: 'chat_app_verification_token', type: 'string', secret: true, description: 'chat app verification token; required when chat_app_enabled' },
  { name: 'event_tracking_enabled', type: 'boolean', description: 'product event tracking; requires event_tracking_collector_hostname' },
  { name: 'event_tracking_app_id', type: 'string', description: 'event tracking app ID' },
  { name: 'event_tracking_database_collector_hostname', type: 'string', description: 'event tracking database collector host name' },
  { name: 'event_tracking_cookie_domain', type: 'string', description: 'event tracking cookie domain' },
  { name: 'event_tracking_collector_hostname', type: 'string', description: 'event tracking collector host name; required when event_tracking_enabled' },
  { name: 'mail_provider_signing_key', type: 'string', secret: true, description: 'signing key of the mail provider webhooks' },
  { name: 'mail_provider_events_enabled', type: 'boolean', description: 'receive mail provider events' },
  { name: 'managed_k8s_access_key_id', type: 'string', description: 'managed Kubernetes cloud access key ID (an identifier, not secret)' },
  { name: 'managed_k8s_account_id', type: 'string', description: 'managed Kubernetes cloud account ID' },
  { name: 'managed_k8s_secret_access_key', type: 'string', secret: true, description: 'managed Kubernetes cloud secret access key' },
  { name: 'managed_k8s_integration_enabled', type: 'boolean', description: 'managed Kubernetes integration' },
  { name: 'external_pipeline_validation_service_url', type: 'string', description: 'URL of the external pipeline validation service' },
  { name: 'external_pipeline_validation_service_token', type: 'string', secret: true, description: 'token sent in the header X-Service-Token' },
  { name: 'external_pipeline_validation_service_timeout', type: 'integer', description: 'timeout of the validation service; on timeout the pipeline is treated as OK' },
  { name: 'static_objects_external_storage_url', type: 'string', description: 'external storage URL for static objects; requires static_objects_external_storage_auth_token' },
  { name: 'static_objects_external_storage_auth_token', type: 'string', secret: true, description: 'auth token of the static objects storage; required with static_objects_external_storage_url' },
  { name: 'rate_limiting_response_text', type: 'string', description: 'plain text sent when throttled; "Retry later" if blank' },
]);

// ---------------------------------------------------------------------------------------------
// 2.1 Search engine (all [HT])
// ---------------------------------------------------------------------------------------------
const SEARCH_ENGINE = table(
  'Search engine',
  [
    { name: 'search_engine_indexing', type: 'boolean', description: 'enable indexing' },
    { name: 'search_engine_search', type: 'boolean', description: 'enable search through the engine' },
    { name: 'search_engine_limit_indexing', type: 'boolean', description: 'limit indexing to the listed namespaces and projects' },
    { name: 'search_engine_requeue_workers', type: 'boolean', description: 'automatically requeue indexing workers' },
    { name: 'search_engine_aws', type: 'boolean', description: 'use a cloud-hosted engine' },
    { name: 'search_engine_aws_access_key', type: 'string', description: 'cloud access key (ID)', note: 'The access key ID is a public identifier, not secret; the secret part is search_engine_aws_secret_access_key.' },
    { name: 'search_engine_aws_secret_access_key', type: 'string', secret: true, description: 'cloud secret access key' },
    { name: 'search_engine_aws_region', type: 'string', description: 'cloud region' },
    { name: 'search_engine_indexed_field_length_limit', type: 'integer', description: 'maximum indexed field length; 0 = no limit; not for repository/wiki' },
    { name: 'search_engine_indexed_file_size_limit_kb', type: 'integer', description: 'maximum size of indexed repository and wiki files (KB)' },
    { name: 'search_engine_max_bulk_concurrency', type: 'integer', description: 'maximum concurrent bulk requests (repository indexing only)' },
    { name: 'search_engine_max_code_indexing_concurrency', type: 'integer', description: 'maximum concurrent code indexing jobs (repository indexing only)' },
    { name: 'search_engine_max_bulk_size_mb', type: 'integer', description: 'maximum bulk request size in MB (repository indexing only)' },
    { name: 'search_engine_worker_number_of_shards', type: 'integer', default: 2, description: 'number of indexing worker shards' },
    { name: 'search_engine_namespace_ids', type: 'integer[]', description: 'namespaces to index when limit_indexing is on' },
    { name: 'search_engine_project_ids', type: 'integer[]', description: 'projects to index when limit_indexing is on' },
    { name: 'search_engine_url', type: 'string', description: 'engine URL; comma-separated list for clusters' },
    { name: 'search_engine_username', type: 'string', description: 'engine user name' },
    { name: 'search_engine_password', type: 'string', secret: true, description: 'engine password' },
    { name: 'search_engine_prefix', type: 'string', minLength: 1, maxLength: 100, pattern: '^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$', description: 'index name prefix: 1-100 lowercase alphanumerics, hyphens, underscores; no leading/trailing hyphen or underscore', note: 'The spec\'s default text ("default gitlab-equivalent prefix is the string `instance`-neutral") names no usable value; no default recorded.' },
    { name: 'search_engine_retry_on_failure', type: 'integer', description: 'maximum retries of a failed request' },
  ],
  HT,
);

// ---------------------------------------------------------------------------------------------
// 2.1 CI, pipelines, containers, packages, imports
// ---------------------------------------------------------------------------------------------
const CI = table('CI, pipelines, containers, packages, imports', [
  { name: 'archive_builds_in_human_readable', type: 'string', description: 'age after which jobs are archived (>= 1 day, e.g. a count plus days/months/years); empty = never', note: 'plumb reads the duration (a number and a unit from seconds to years, several parts allowed) and refuses one shorter than a day; a form it cannot read is left to the instance.' },
  { name: 'auto_devops_domain', type: 'string', description: 'default Auto DevOps domain' },
  { name: 'auto_devops_enabled', type: 'boolean', description: 'Auto DevOps for projects without CI configuration' },
  { name: 'ci_delete_pipelines_in_seconds_limit_human_readable', type: 'string', default: '1 year', description: 'maximum age of pipelines before automatic deletion (human-readable)' },
  { name: 'ci_job_live_trace_enabled', type: 'boolean', description: 'incremental job logs; needs object storage' },
  { name: 'git_push_pipeline_limit', type: 'integer', description: 'maximum pipelines created per push' },
  { name: 'ci_max_total_yaml_size_bytes', type: 'integer', description: 'maximum total size of a pipeline configuration with includes, in bytes' },
  { name: 'ci_max_includes', type: 'integer', default: 150, description: 'maximum includes per pipeline' },
  { name: 'ci_partitions_size_limit', type: 'integer', default: 107374182400, description: 'CI partition size limit in bytes; default 100 GB', note: 'The spec says "default 100 GB" for a byte count; recorded as 100 GiB (107374182400), the service\'s usual reading of GB.' },
  { name: 'max_yaml_depth', type: 'integer', default: 100, description: 'maximum depth of CI YAML' },
  { name: 'max_yaml_size_bytes', type: 'integer', default: 2097152, description: 'maximum size of one CI YAML file in bytes' },
  { name: 'pipeline_limit_per_project_user_sha', type: 'integer', description: 'pipelines per minute per project, user and commit; off by default' },
  { name: 'downstream_pipeline_trigger_limit_per_project_user_sha', type: 'integer', default: 0, since: '16.10', description: 'downstream pipelines per minute per project, user and commit; 0 = none' },
  { name: 'keep_latest_artifact', type: 'boolean', default: true, description: 'keep the latest artifacts of each ref' },
  { name: 'max_artifacts_size', type: 'integer', description: 'maximum artifacts size in MB' },
  { name: 'protected_ci_variables', type: 'boolean', description: 'new CI variables are protected by default' },
  { name: 'project_jobs_api_rate_limit', type: 'integer', default: 600, since: '16.5', description: 'project jobs API requests per minute' },
  { name: 'container_expiration_policies_enable_historic_entries', type: 'boolean', description: 'cleanup policies for projects created before they existed' },
  { name: 'container_registry_cleanup_tags_service_max_list_size', type: 'integer', description: 'maximum tags deleted in one cleanup run' },
  { name: 'container_registry_delete_tags_service_timeout', type: 'integer', description: 'seconds a tag deletion batch may take' },
  { name: 'container_registry_expiration_policies_caching', type: 'boolean', description: 'cache during container cleanup policies' },
  { name: 'container_registry_expiration_policies_worker_capacity', type: 'integer', description: 'workers running container cleanup policies' },
  { name: 'container_registry_token_expire_delay', type: 'integer', description: 'container registry token lifetime in minutes' },
  { name: 'package_registry_cleanup_policies_worker_capacity', type: 'integer', description: 'workers running package cleanup policies' },
  { name: 'package_registry_allow_anyone_to_pull_option', type: 'boolean', description: 'offer the "allow anyone to pull" option in projects' },
  { name: 'java_package_requests_forwarding', type: 'boolean', tiers: HT, description: 'forward Java package requests to the public default remote repository' },
  { name: 'js_package_requests_forwarding', type: 'boolean', tiers: HT, description: 'forward JavaScript package requests to the public default remote repository' },
  { name: 'python_package_requests_forwarding', type: 'boolean', tiers: HT, description: 'forward Python package requests to the public default remote repository' },
  { name: 'package_metadata_purl_types', type: 'integer[]', tiers: SM_TT, description: 'package URL types whose metadata is synced (values not shown)' },
  { name: 'dotnet_package_skip_metadata_url_validation', type: 'boolean', since: '17.0', description: 'skip URL validation of .NET package metadata' },
  { name: 'chart_max_packages_count', type: 'integer', minimum: 1, default: 1000, description: 'maximum Helm chart packages listed per channel' },
  { name: 'max_infra_state_size_bytes', type: 'integer', description: 'maximum infrastructure state file size in bytes; 0 = unlimited' },
  { name: 'pages_domain_verification_enabled', type: 'boolean', description: 'custom Pages domains must be verified' },
  { name: 'pages_unique_domain_default_enabled', type: 'boolean', default: true, description: 'new projects get a unique Pages domain' },
  { name: 'max_pages_size', type: 'integer', description: 'maximum Pages site size in MB' },
  { name: 'import_sources', type: 'string[]', enum: ['code_host_a', 'code_host_b', 'code_host_b_server', 'tracker_a', 'git', 'service_project', 'code_host_c', 'manifest'], description: 'allowed import sources' },
  { name: 'concurrent_code_host_a_import_jobs_limit', type: 'integer', default: 1000, since: '16.11', description: 'concurrent import jobs from code_host_a' },
  { name: 'concurrent_code_host_b_import_jobs_limit', type: 'integer', default: 100, since: '16.11', description: 'concurrent import jobs from code_host_b' },
  { name: 'concurrent_code_host_b_server_import_jobs_limit', type: 'integer', default: 100, since: '16.11', description: 'concurrent import jobs from code_host_b_server' },
  { name: 'max_code_host_a_response_size_limit', type: 'integer', description: 'maximum code_host_a import response size in MB; 0 unlimited' },
  { name: 'max_code_host_a_response_json_value_count', type: 'integer', description: 'maximum JSON values in a code_host_a import response; 0 unlimited' },
  { name: 'bulk_import_enabled', type: 'boolean', description: 'migrate groups and projects by direct transfer' },
  { name: 'bulk_import_max_download_file_size', type: 'integer', since: '16.3', description: 'maximum download file size of a direct transfer' },
  { name: 'bulk_import_concurrent_pipeline_batch_limit', type: 'integer', description: 'maximum concurrent direct transfer batches' },
  { name: 'concurrent_relation_batch_export_limit', type: 'integer', since: '17.6', description: 'maximum concurrent relation batch exports' },
  { name: 'relation_export_batch_size', type: 'integer', since: '18.2', description: 'records per relation export batch' },
  { name: 'project_export_enabled', type: 'boolean', description: 'project export' },
  { name: 'max_export_size', type: 'integer', default: 0, description: 'maximum export size in MB; 0 unlimited' },
  { name: 'max_import_size', type: 'integer', default: 0, description: 'maximum import size in MB; 0 unlimited' },
  { name: 'max_import_remote_file_size', type: 'integer', since: '16.3', description: 'maximum remote file size of an import' },
  { name: 'max_decompressed_archive_size', type: 'integer', default: 25600, description: 'maximum decompressed import archive size in MB; 0 unlimited' },
  { name: 'decompress_archive_file_timeout', type: 'integer', since: '16.4', description: 'seconds to decompress an import archive; 0 disables' },
  { name: 'max_http_decompressed_size', type: 'integer', description: 'maximum decompressed size of HTTP responses in MiB; 0 unlimited' },
  { name: 'max_http_response_size_limit', type: 'integer', description: 'maximum HTTP response size in MiB; 0 unlimited' },
  { name: 'receive_max_input_size', type: 'integer', description: 'maximum push size in MB' },
  { name: 'repository_size_limit', type: 'integer', tiers: HT, description: 'maximum repository size in MB' },
  { name: 'max_attachment_size', type: 'integer', description: 'maximum attachment size in MB' },
  { name: 'snippet_size_limit', type: 'integer', default: 52428800, description: 'maximum snippet size in bytes' },
  { name: 'wiki_page_max_content_bytes', type: 'integer', minimum: 1024, default: 5242880, description: 'maximum wiki page content size in bytes; min 1024' },
  { name: 'asciidoc_max_includes', type: 'integer', maximum: 64, default: 32, description: 'maximum includes in an AsciiDoc document; max 64' },
  { name: 'diff_max_patch_bytes', type: 'integer', description: 'maximum diff patch size in bytes' },
  { name: 'diff_max_files', type: 'integer', description: 'maximum files in a diff' },
  { name: 'diff_max_lines', type: 'integer', description: 'maximum lines in a diff' },
  { name: 'hashed_storage_enabled', type: 'boolean', default: true, fixed: true, description: 'hashed repository storage; always on', note: 'The spec says "always on": it reads true and the instance refuses false.' },
  { name: 'repository_storages_weighted', type: 'hash', values: { minimum: 0, maximum: 100 }, description: 'storage name to integer weight (0–100) for new repositories', note: 'Spec type "hash of string to integer"; recorded as hash (values are integer weights, 0 to 100 as the service validates them).' },
  { name: 'repository_checks_enabled', type: 'boolean', description: 'periodic repository integrity checks' },
  { name: 'mirror_available', type: 'boolean', description: 'non-admins may set up repository mirroring' },
  { name: 'mirror_capacity_threshold', type: 'integer', tiers: HT, description: 'minimum free mirror capacity before scheduling more mirrors' },
  { name: 'mirror_max_capacity', type: 'integer', tiers: HT, description: 'maximum concurrent mirror updates' },
  { name: 'mirror_max_delay', type: 'integer', tiers: HT, description: 'maximum mirror update delay in minutes' },
  { name: 'authorized_keys_enabled', type: 'boolean', description: 'write SSH keys to the authorized_keys file' },
  { name: 'housekeeping_enabled', type: 'boolean', description: 'automatic repository housekeeping' },
  { name: 'housekeeping_optimize_repository_period', type: 'integer', description: 'pushes between repository optimisations' },
  { name: 'housekeeping_full_repack_period', type: 'integer', description: 'deprecated 15.8; use housekeeping_optimize_repository_period', deprecated: { since: '15.8', replacement: 'housekeeping_optimize_repository_period' } },
  { name: 'housekeeping_gc_period', type: 'integer', description: 'deprecated 15.8; use housekeeping_optimize_repository_period', deprecated: { since: '15.8', replacement: 'housekeeping_optimize_repository_period' } },
  { name: 'housekeeping_incremental_repack_period', type: 'integer', description: 'deprecated 15.8; use housekeeping_optimize_repository_period', deprecated: { since: '15.8', replacement: 'housekeeping_optimize_repository_period' } },
  { name: 'housekeeping_bitmaps_enabled', type: 'boolean', default: true, fixed: true, description: 'deprecated; bitmaps are always written', deprecated: { note: 'always true' }, note: 'Deprecated and "always true": it reads true and the instance ignores writes.' },
  { name: 'storage_timeout_default', type: 'integer', description: 'default storage call timeout in seconds; 0 disables' },
  { name: 'storage_timeout_fast', type: 'integer', description: 'fast storage call timeout in seconds; 0 disables' },
  { name: 'storage_timeout_medium', type: 'integer', description: 'medium storage call timeout in seconds; 0 disables' },
  { name: 'worker_job_limiter_mode', type: 'string', enum: ['track', 'compress'], default: 'compress', description: 'background job size limiter mode: track or compress', note: 'Spec row "sidekiq-replacement worker_job_limiter_mode": the setting is worker_job_limiter_mode (the prefix is an editorial marker).' },
  { name: 'worker_job_limiter_compression_threshold_bytes', type: 'integer', default: 100000, description: 'job payload size above which it is compressed' },
  { name: 'worker_job_limiter_limit_bytes', type: 'integer', default: 0, description: 'job payload size above which it is rejected; 0 = no rejection' },
  { name: 'metrics_method_call_threshold', type: 'integer', description: 'method call duration in ms above which it is recorded' },
  { name: 'terminal_max_session_time', type: 'integer', description: 'maximum web terminal session in seconds; 0 unlimited' },
  { name: 'polling_interval_multiplier', type: 'float', minimum: 0, description: 'multiplier of client polling intervals; 0 disables polling' },
  { name: 'push_event_activities_limit', type: 'integer', description: 'changes per push above which one bulk push event is created; 0 does not disable' },
  { name: 'push_event_hooks_limit', type: 'integer', default: 3, description: 'changes per push above which per-change webhooks are not triggered' },
  { name: 'prevent_merge_requests_author_approval', type: 'boolean', description: 'authors cannot approve their merge requests' },
  { name: 'prevent_merge_requests_committers_approval', type: 'boolean', description: 'committers cannot approve merge requests they committed to' },
  { name: 'disable_overriding_approvers_per_merge_request', type: 'boolean', description: 'approvers cannot be overridden per merge request' },
  { name: 'security_policy_global_group_approvers_enabled', type: 'boolean', tiers: HT, tierApplies: 'both', description: 'security policy approver groups are searched instance-wide' },
  { name: 'security_approval_policies_limit', type: 'integer', tiers: HT, tierApplies: 'both', maximum: 20, default: 5, description: 'maximum approval policies per security policy project; max 20' },
  { name: 'scan_execution_policies_action_limit', type: 'integer', tiers: HT, tierApplies: 'both', maximum: 20, default: 0, description: 'maximum actions per scan execution policy; max 20' },
  { name: 'scan_execution_policies_schedule_limit', type: 'integer', tiers: HT, tierApplies: 'both', maximum: 20, default: 0, description: 'maximum schedules per scan execution policy; max 20' },
  { name: 'receptive_cluster_agents_enabled', type: 'boolean', since: '17.4', description: 'the instance may connect to receptive cluster agents' },
  { name: 'file_template_project_id', type: 'integer', tiers: HT, tierApplies: 'both', description: 'project whose files serve as instance templates' },
  { name: 'check_namespace_plan', type: 'boolean', description: 'features depend on the namespace plan' },
  { name: 'enforce_namespace_storage_limit', type: 'boolean', description: 'enforce namespace storage limits' },
  { name: 'automatic_purchased_storage_allocation', type: 'boolean', description: 'allocate purchased storage automatically' },
  { name: 'max_number_of_repository_downloads', type: 'integer', tiers: SM_TT, maximum: 10000, default: 0, description: 'repositories a user may download within the time period before being flagged; max 10000' },
  { name: 'max_number_of_repository_downloads_within_time_period', type: 'integer', tiers: SM_TT, maximum: 864000, default: 0, description: 'reporting time period in seconds; max 864000' },
  { name: 'auto_ban_user_on_excessive_projects_download', type: 'boolean', tiers: SM_TT, description: 'ban users who exceed the repository download limit' },
  { name: 'git_rate_limit_users_allowlist', type: 'string[]', tiers: SM_TT, maxItems: 100, default: [], description: 'usernames excluded from the Git download rate limit; max 100' },
  { name: 'git_rate_limit_users_alertlist', type: 'integer[]', tiers: SM_TT, maxItems: 100, default: [], description: 'user IDs alerted when the Git download rate limit is exceeded; max 100' },
  { name: 'service_shell_operation_limit', type: 'integer', default: 600, since: '16.2', description: 'Git operations per minute per user' },
]);

// ---------------------------------------------------------------------------------------------
// 2.1 Rate limits
// ---------------------------------------------------------------------------------------------
/** One throttle family: `<stem>_enabled`, `<stem>_period_in_seconds`, `<stem>_requests_per_period`. */
function throttle(stem: string, what: string, extra: { since?: string; defaults?: [boolean, number, number]; note?: string } = {}): Entry[] {
  const { since, defaults, note } = extra;
  const common = note ? { note } : {};
  return [
    { name: `throttle_${stem}_enabled`, type: 'boolean', ...common, ...(since ? { since } : {}), ...(defaults ? { default: defaults[0] } : {}), description: `throttle ${what}; requires its period and requests settings` },
    { name: `throttle_${stem}_period_in_seconds`, type: 'integer', ...common, ...(defaults ? { default: defaults[1] } : {}), description: `period of the ${what} throttle in seconds; required when the flag is enabled` },
    { name: `throttle_${stem}_requests_per_period`, type: 'integer', ...common, ...(defaults ? { default: defaults[2] } : {}), description: `requests allowed per period by the ${what} throttle; required when the flag is enabled` },
  ];
}
const PLUS_NOTATION = 'Expanded from the row "throttle_…_enabled (+ period_in_seconds, requests_per_period) | boolean, integer".';
const USERS_API = 'per minute per user or IP; 0 disables';

const RATE_LIMITS = table('Rate limits', [
  { name: 'autocomplete_users', type: 'integer', description: 'authenticated requests per minute to GET /autocomplete/users' },
  { name: 'autocomplete_users_unauthenticated', type: 'integer', description: 'unauthenticated requests per minute to GET /autocomplete/users' },
  { name: 'issues_create_limit', type: 'integer', description: 'issues created per minute per user; off by default' },
  { name: 'raw_blob_request_limit', type: 'integer', default: 300, description: 'requests per minute per raw path; 0 disables' },
  { name: 'search_rate_limit', type: 'integer', default: 30, description: 'authenticated search requests per minute; 0 disables' },
  { name: 'search_rate_limit_unauthenticated', type: 'integer', default: 10, description: 'unauthenticated search requests per minute; 0 disables' },
  { name: 'projects_api_rate_limit_unauthenticated', type: 'integer', default: 400, description: 'unauthenticated project list requests per 10 minutes per IP; 0 disables' },
  { name: 'users_api_limit_following', type: 'integer', default: 100, since: '17.10', description: `user following API requests; ${USERS_API}` },
  { name: 'users_api_limit_followers', type: 'integer', default: 100, since: '17.10', description: `user followers API requests; ${USERS_API}` },
  { name: 'users_api_limit_status', type: 'integer', default: 240, description: `user status API requests; ${USERS_API}` },
  { name: 'users_api_limit_keys', type: 'integer', default: 120, responseName: 'users_api_limit_ssh_keys', description: `user SSH keys list API requests; ${USERS_API}`, note: 'Returned as users_api_limit_ssh_keys.' },
  { name: 'users_api_limit_key', type: 'integer', default: 120, responseName: 'users_api_limit_ssh_key', description: `single user SSH key API requests; ${USERS_API}`, note: 'Returned as users_api_limit_ssh_key.' },
  { name: 'users_api_limit_gpg_keys', type: 'integer', default: 120, description: `user GPG keys list API requests; ${USERS_API}` },
  { name: 'users_api_limit_gpg_key', type: 'integer', default: 120, description: `single user GPG key API requests; ${USERS_API}` },
  { name: 'virtual_registries_endpoints_api_limit', type: 'integer', tiers: HT, tierApplies: 'both', default: 1000, since: '17.11', description: 'virtual registry requests per IP per 15 seconds; 0 disables', note: 'Untagged in the table; HT from the list of higher-tier fields.' },
  ...throttle('authenticated_api', 'authenticated API requests (per user)'),
  ...throttle('authenticated_web', 'authenticated web requests', { note: PLUS_NOTATION }),
  ...throttle('authenticated_packages_api', 'authenticated package API requests', { note: PLUS_NOTATION }),
  ...throttle('unauthenticated_api', 'unauthenticated API requests (per IP)', { note: PLUS_NOTATION }),
  ...throttle('unauthenticated_web', 'unauthenticated web requests (per IP)', { note: PLUS_NOTATION }),
  ...throttle('unauthenticated_packages_api', 'unauthenticated package API requests', { note: PLUS_NOTATION }),
  ...throttle('unauthenticated', 'unauthenticated requests (deprecated 14.3; use the web or api variants)', {
    note: `${PLUS_NOTATION} Replacement recorded as the web variant; the api variant is the other option the spec names.`,
  }).map((e): Entry => ({ ...e, deprecated: { since: '14.3', replacement: e.name.replace('throttle_unauthenticated_', 'throttle_unauthenticated_web_'), note: 'use the web or api variants' } })),
  ...throttle('authenticated_git_http', 'authenticated Git over HTTP requests', { since: '18.1', defaults: [false, 3600, 3600], note: 'The spec marks the flag "conditionally required" and its period/requests "effective only when enabled is true"; treated like the other throttle families (required when enabled, per section 2.2).' }),
  ...throttle('unauthenticated_git_http', 'unauthenticated Git over HTTP requests', { since: '17.0', defaults: [false, 3600, 3600], note: 'The spec marks the flag "conditionally required" and its period/requests "effective only when enabled is true"; treated like the other throttle families (required when enabled, per section 2.2).' }),
]);

// ---------------------------------------------------------------------------------------------
// 2.1 Dormant projects
// ---------------------------------------------------------------------------------------------
const DORMANT = table('Dormant projects', [
  { name: 'delete_inactive_projects', type: 'boolean', default: false, description: 'delete inactive projects' },
  { name: 'inactive_projects_delete_after_months', type: 'integer', default: 2, description: 'months of inactivity before deletion; used when deletion is on' },
  { name: 'inactive_projects_min_size_mb', type: 'integer', default: 0, description: 'minimum size in MB of projects considered for deletion; used when deletion is on' },
  { name: 'inactive_projects_send_warning_email_after_months', type: 'integer', default: 1, description: 'months of inactivity before the warning email; used when deletion is on' },
]);

// ---------------------------------------------------------------------------------------------
// Section 2: removed from the interface (types are best guesses; the spec gives none)
// ---------------------------------------------------------------------------------------------
const REMOVED = table('Removed from the interface', [
  { name: 'delayed_project_deletion', type: 'boolean', removed: { version: '16.0' }, description: 'removed in 16.0: delayed project deletion', note: 'Type is a best guess; the spec gives none.' },
  { name: 'delayed_group_deletion', type: 'boolean', removed: { version: '16.0' }, description: 'removed in 16.0: delayed group deletion', note: 'Type is a best guess; the spec gives none.' },
  { name: 'in_product_marketing_emails_enabled', type: 'boolean', removed: { version: '16.6' }, description: 'removed in 16.6: in-product marketing emails', note: 'Type is a best guess; the spec gives none.' },
  { name: 'repository_storages', type: 'string[]', removed: { version: '16.6' }, description: 'removed in 16.6: storages for new repositories', note: 'Type is a best guess; the spec gives none and names no replacement (repository_storages_weighted covers the same purpose).' },
  { name: 'user_email_lookup_limit', type: 'integer', removed: { version: '16.7' }, description: 'removed in 16.7: user email lookup rate limit', note: 'Type is a best guess; the spec gives none and names no replacement.' },
]);

/**
 * Every application setting: the 384 current names of spec section 2.1 in document order, then the
 * five removed ones (`removed` set). Use `settingNames()` from the index for the current names only.
 */
export const SETTINGS: readonly SettingSpec[] = [
  ...ACCESS,
  ...VISIBILITY_DEFAULTS,
  ...INTEGRATIONS,
  ...SEARCH_ENGINE,
  ...CI,
  ...RATE_LIMITS,
  ...DORMANT,
  ...REMOVED,
];

/** Rows of the spec's settings tables that are not settings, and why. */
export const NON_SETTING_ROWS: readonly { readonly row: string; readonly reason: string }[] = [
  { row: 'eks-style search engine settings', reason: 'cross-reference to the "Search engine" table that follows (empty type, meaning "see next table")' },
  { row: 'container for misc: container_registry..., see above', reason: 'cross-reference to the container_registry_* rows earlier in the same table (empty type)' },
];

// ---------------------------------------------------------------------------------------------
// 2.2 Dependencies between settings
// ---------------------------------------------------------------------------------------------
const throttleRule = (stem: string): SettingRule => ({
  kind: 'required-when-enabled',
  flag: `throttle_${stem}_enabled`,
  requires: [`throttle_${stem}_period_in_seconds`, `throttle_${stem}_requests_per_period`],
});

/**
 * Cross-field rules. `required-when-enabled` covers every master flag of section 2.2 and every
 * `requires` / `req-by` note; `required-with` the certificate/key and URL/token pairs; `not-in-list`
 * the visibility rule. The git_http throttle families are included because section 2.2 names
 * "each throttle_*_enabled flag".
 */
export const SETTING_RULES: readonly SettingRule[] = [
  { kind: 'required-when-enabled', flag: 'email_restrictions_enabled', requires: ['email_restrictions'] },
  { kind: 'required-when-enabled', flag: 'domain_denylist_enabled', requires: ['domain_denylist'] },
  { kind: 'required-when-enabled', flag: 'require_two_factor_authentication', requires: ['two_factor_grace_period'] },
  { kind: 'required-when-enabled', flag: 'captcha_enabled', requires: ['captcha_private_key', 'captcha_site_key'] },
  { kind: 'required-when-enabled', flag: 'spam_filter_enabled', requires: ['spam_filter_api_key'] },
  { kind: 'required-when-enabled', flag: 'unique_ips_limit_enabled', requires: ['unique_ips_limit_per_user', 'unique_ips_limit_time_window'] },
  { kind: 'required-when-enabled', flag: 'enforce_terms', requires: ['terms'] },
  { kind: 'required-when-enabled', flag: 'external_authorization_service_enabled', requires: ['external_authorization_service_default_label', 'external_authorization_service_timeout', 'external_authorization_service_url'] },
  { kind: 'required-when-enabled', flag: 'shared_runners_enabled', requires: ['shared_runners_text', 'shared_runners_minutes'] },
  { kind: 'required-when-enabled', flag: 'asset_proxy_enabled', requires: ['asset_proxy_url'] },
  { kind: 'required-when-enabled', flag: 'diagram_editor_enabled', requires: ['diagram_editor_url'] },
  { kind: 'required-when-enabled', flag: 'uml_diagram_enabled', requires: ['uml_diagram_url'] },
  { kind: 'required-when-enabled', flag: 'diagram_render_enabled', requires: ['diagram_render_url'] },
  { kind: 'required-when-enabled', flag: 'cloud_ide_enabled', requires: ['cloud_ide_url'] },
  { kind: 'required-when-enabled', flag: 'code_intel_enabled', requires: ['code_intel_url'] },
  { kind: 'required-when-enabled', flag: 'chat_app_enabled', requires: ['chat_app_id', 'chat_app_secret', 'chat_app_signing_secret', 'chat_app_verification_token'] },
  { kind: 'required-when-enabled', flag: 'event_tracking_enabled', requires: ['event_tracking_collector_hostname'] },
  throttleRule('authenticated_api'),
  throttleRule('authenticated_web'),
  throttleRule('authenticated_packages_api'),
  throttleRule('unauthenticated_api'),
  throttleRule('unauthenticated_web'),
  throttleRule('unauthenticated_packages_api'),
  throttleRule('unauthenticated'),
  throttleRule('authenticated_git_http'),
  throttleRule('unauthenticated_git_http'),
  { kind: 'required-with', field: 'external_auth_client_cert', requires: ['external_auth_client_key'] },
  { kind: 'required-with', field: 'static_objects_external_storage_url', requires: ['static_objects_external_storage_auth_token'] },
  { kind: 'not-in-list', field: 'default_group_visibility', list: 'restricted_visibility_levels' },
  { kind: 'not-in-list', field: 'default_project_visibility', list: 'restricted_visibility_levels' },
];

/** Fields of the settings record that only appear in responses (section 2). */
export const RESPONSE_ONLY_SETTINGS: readonly ResponseOnlyField[] = [
  { name: 'id', type: 'integer' },
  { name: 'created_at', type: 'datetime' },
  { name: 'updated_at', type: 'datetime' },
  { name: 'model_prompt_cache_enabled', type: 'boolean' },
  { name: 'lock_model_prompt_cache_enabled', type: 'boolean' },
];
