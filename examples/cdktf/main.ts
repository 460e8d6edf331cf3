/**
 * The instance of examples/plumb/, written as a CDKTF app with
 * plumb's generated constructs (`plumb-gitops/cdktf`). `plumb plan --cdktf .` (or any command run in the
 * directory of cdktf.json) runs this app, reads what it synthesizes and plans exactly as for the
 * YAML. The stack name is the instance name.
 *
 * The same synthesized stack can be applied by Terraform itself (`terraform -chdir=cdktf.out/stacks/local
 * apply`, plumb's provider behind it: docs/terraform.md). Terraform runs in the stack's directory, so
 * the paths are made absolute here, from the directory of cdktf.json, and mean the same to both.
 */
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { applicationSettings, groupAccessToken, groupVariable, projectPages, projectVariable, protectedBranch, provider, repositoryFile } from 'plumb-gitops/cdktf';

/** A path relative to the directory of cdktf.json (two levels up from this file), made absolute. */
const fromApp = (rel: string) => decodeURIComponent(new URL(`../../${rel}`, import.meta.url).pathname);

class LocalInstance extends TerraformStack {
  constructor(scope: Construct, name: string) {
    super(scope, name);

    new provider.PlumbProvider(this, 'plumb', {
      url: 'http://127.0.0.1:8929',
      // The name of an environment variable that holds an administrator's access token.
      tokenEnv: 'PLUMB_TOKEN',
      // That token commits the files below straight onto a protected default branch, skipping the
      // review the protection stands for: a risk plumb refuses unless accepted here.
      allowRisky: ['admin-push-protected-branch'],
    });

    new applicationSettings.ApplicationSettings(this, 'settings', {
      signupEnabled: false,
      requireAdminApprovalAfterUserSignup: true,
      defaultProjectVisibility: 'internal',
      defaultGroupVisibility: 'internal',
      restrictedVisibilityLevels: ['public'],
      deletionAdjournedPeriod: 14,
      requireTwoFactorAuthentication: true,
      twoFactorGracePeriod: 48,
      maxLoginAttempts: 10,
      failedLoginAttemptsUnlockPeriodInMinutes: 30,
      throttleAuthenticatedApiEnabled: true,
      throttleAuthenticatedApiPeriodInSeconds: 60,
      throttleAuthenticatedApiRequestsPerPeriod: 600,
      abuseNotificationEmail: 'abuse@example.com',
    });

    new groupAccessToken.GroupAccessToken(this, 'ci-deployer', {
      group: 'platform/infra',
      name: 'ci-deployer',
      description: 'Deploys from CI',
      scopes: ['api'],
      accessLevel: 'maintainer',
      rotation: { lifetimeDays: 90, rotateBeforeDays: 14 },
      sinks: [
        { file: fromApp('examples/secrets/ci-deployer.token') },
        { ciVariable: { project: 'platform/infra/instance-config', key: 'CI_DEPLOYER_TOKEN', description: 'Deploys from CI; rotated by plumb' } },
      ],
    });

    // examples/plumb/pages.yaml
    new projectPages.ProjectPages(this, 'docs-pages', {
      project: 'platform/handbook',
      pagesPrimaryDomain: 'docs.example.test',
      pagesHttpsOnly: false,
      pagesUniqueDomainEnabled: false,
      published: true,
    });

    // examples/plumb/files.yaml
    const instanceConfig = 'platform/infra/instance-config';
    new repositoryFile.RepositoryFile(this, 'codeowners', {
      project: instanceConfig,
      filePath: 'CODEOWNERS',
      content: '* @platform/infra\n',
      // delivery: { mergeRequest: { labels: ['plumb'] } },   // the project's (docs/cdktf.md#file-delivery); default: one commit
      commitMessages: {
        create: 'chore: add {path} (managed by plumb)',
        update: 'chore: restore {path} (managed by plumb)',
      },
    });
    new repositoryFile.RepositoryFile(this, 'security-md', {
      project: instanceConfig,
      filePath: 'SECURITY.md',
      source: fromApp('examples/files/SECURITY.md'),
    });
    new repositoryFile.RepositoryFile(this, 'apply-sh', {
      project: instanceConfig,
      filePath: 'scripts/apply.sh',
      content: '#!/bin/sh\nset -eu\nplumb apply --config settings.yaml\n',
      executeFilemode: true,
    });

    // examples/plumb/protected-branches.yaml
    new protectedBranch.ProtectedBranch(this, 'main-protected', {
      project: instanceConfig,
      branch: 'main',
      pushAccessLevel: 'maintainer',
      mergeAccessLevel: 'maintainer',
      allowForcePush: false,
    });
    new protectedBranch.ProtectedBranch(this, 'release-protected', {
      project: instanceConfig,
      branch: 'release/*',
      pushAccessLevel: 'no_access',
      mergeAccessLevel: 'maintainer',
    });
    // examples/plumb/variables.yaml: one resource per key and environment scope. A secret value
    // comes from a sensitive TerraformVariable (docs/cdktf.md#secrets); these are literal.
    new groupVariable.GroupVariable(this, 'registry-mirror', {
      group: 'platform',
      key: 'REGISTRY_MIRROR',
      environmentScope: '*',
      value: 'mirror.example.test',
      description: 'pulled by every project of the group',
    });
    const variable = (id: string, key: string, environmentScope: string, rest: Omit<projectVariable.ProjectVariableConfig, 'project' | 'key' | 'environmentScope'>) =>
      new projectVariable.ProjectVariable(this, id, { project: instanceConfig, key, environmentScope, ...rest });
    variable('plumb-instance', 'PLUMB_INSTANCE', '*', { value: 'local' });
    variable('api-url-production', 'API_URL', 'production', { value: 'https://api.example.test', protected: true });
    variable('api-url-staging', 'API_URL', 'staging', { value: 'https://staging.api.example.test' });
    variable('signing-key-id', 'SIGNING_KEY_ID', '*', { value: 'example-key-0001', masked: true, protected: true });
  }
}

const app = new App();
new LocalInstance(app, 'local');
app.synth();
