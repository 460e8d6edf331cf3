/**
 * The application settings plumb treats as write-only secrets, written out by hand (not read from
 * the catalogue a test checks): the spec does not say which settings GET returns, so this list is
 * a decision, recorded in docs/emulator.md ("Settings: secrets in responses"). The catalogue's
 * secrets must equal it (test/catalogue), and the emulator omits exactly these (test/emulator).
 */
export const SECRET_SETTINGS: readonly string[] = [
  'captcha_private_key',
  'spam_filter_api_key',
  'spam_check_api_key',
  'external_auth_client_key',
  'external_auth_client_key_pass',
  'asset_proxy_secret_key',
  'chat_app_secret',
  'chat_app_signing_secret',
  'chat_app_verification_token',
  'mail_provider_signing_key',
  'managed_k8s_secret_access_key',
  'external_pipeline_validation_service_token',
  'static_objects_external_storage_auth_token',
  'search_engine_aws_secret_access_key',
  'search_engine_password',
];
