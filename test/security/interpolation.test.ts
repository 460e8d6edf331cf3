/**
 * Hostile configurations, part "what a value may interpolate" (issue 28, item 1): a merge request
 * that could write `${env:…}` into a setting the instance shows (`home_page_url`, a help text) would
 * have apply publish the variable to every visitor; one that could read a credential plumb or the CI
 * uses into any value would have apply write the token into the instance. Both are refused at the
 * value's line, and the variable is not used.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { secret, workdir } from '../helpers/cli.js';
import type { Workdir } from '../helpers/cli.js';

const TOKEN = secret('admin-token-interpolation-0123456789');
const APPLY_TOKEN = secret('apply-token-interpolation-9876543210');
const CI_VALUE = secret('ci-credential-value-Qw83Zk');

const dirs: Workdir[] = [];
afterEach(() => {
  for (const wd of dirs.splice(0)) rmSync(wd.dir, { recursive: true, force: true });
});

function project(): Workdir {
  const wd = workdir({ PLUMB_TOKEN: TOKEN });
  dirs.push(wd);
  return wd;
}

const HEAD = 'version: 1\ninstances:\n  prod:\n    url: https://code.example.test\n    token_env: PLUMB_TOKEN\n';

interface Diag {
  code: string;
  severity: string;
  line?: number;
  column?: number;
  file?: string;
  summary: string;
  suggestion?: string;
}

async function validate(wd: Workdir, env: Record<string, string>, extra: string[] = []): Promise<{ code: number; diagnostics: Diag[] }> {
  const r = await wd.run(['validate', '--json', ...extra], env);
  return { code: r.code, diagnostics: (JSON.parse(r.stdout) as { diagnostics: Diag[] }).diagnostics };
}

describe('interpolation only into values the catalogue marks secret', () => {
  it.each([
    ['home_page_url', '"https://evil.example/?r=${env:APPLY_TOKEN}"'],
    ['after_sign_up_text', '"Welcome ${env:APPLY_TOKEN}"'],
    ['help_page_text', '${file:leak.txt}'],
  ])('refuses ${…} in the ordinary setting %s at its line, with a fix, reading nothing', async (key, value) => {
    const wd = project();
    wd.write('leak.txt', APPLY_TOKEN);
    wd.write('plumb.yaml', `${HEAD}    settings:\n      ${key}: ${value}\n`);
    const r = await validate(wd, { APPLY_TOKEN });
    expect(r.code).toBe(1);
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'PLUMB_INTERPOLATION_NOT_ALLOWED', file: 'plumb.yaml', line: 7, column: 7 + key.length + 2 })]);
    expect(r.diagnostics[0]!.summary).toContain(`Setting "${key}"`);
    expect(r.diagnostics[0]!.suggestion).toContain('write the value itself');
  });

  it('refuses it under defaults: too', async () => {
    const wd = project();
    wd.write('plumb.yaml', `version: 1\ndefaults:\n  settings:\n    home_page_url: https://x.example/\${env:APPLY_TOKEN}\ninstances:\n  prod:\n    url: https://code.example.test\n    token_env: PLUMB_TOKEN\n`);
    const r = await validate(wd, { APPLY_TOKEN });
    expect(r.code).toBe(1);
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'PLUMB_INTERPOLATION_NOT_ALLOWED', line: 4 })]);
  });

  it('still reads a write-only setting and a repository file’s content', async () => {
    const wd = project();
    wd.write(
      'plumb.yaml',
      `${HEAD}    settings:\n      captcha_private_key: \${env:CAPTCHA_KEY}\n    projects:\n      platform/app:\n        files:\n          deploy.env:\n            content: "KEY=\${env:CAPTCHA_KEY}"\n`,
    );
    expect((await validate(wd, { CAPTCHA_KEY: CI_VALUE })).code).toBe(0);
  });
});

describe('no value ever interpolates a credential plumb or the CI uses', () => {
  const names = ['PLUMB_TOKEN', 'PLUMB_APPLY_TOKEN', 'PLUMB_READ_TOKEN', 'PLUMB_COMMENT_TOKEN', 'CI_JOB_TOKEN', 'CI_REGISTRY_PASSWORD', 'CI_DEPLOY_PASSWORD', 'CI_DEPENDENCY_PROXY_PASSWORD', 'CI_JOB_JWT', 'CI_JOB_JWT_V2', 'CI_REPOSITORY_URL'];

  it.each(names)('refuses ${env:%s} in a secret setting at its line, set or not', async (name) => {
    const wd = project();
    wd.write('plumb.yaml', `${HEAD}    settings:\n      spam_check_api_key: \${env:${name}}\n`);
    for (const env of [{ [name]: name === 'PLUMB_TOKEN' ? TOKEN : CI_VALUE }, {}]) {
      for (const extra of [[], ['--unavailable-secrets', 'skip']]) {
        const r = await validate(wd, env, extra);
        expect(r.code).toBe(1);
        expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'PLUMB_INTERPOLATION_CREDENTIAL', line: 7 })]);
        expect(r.diagnostics[0]!.summary).toContain(name);
      }
    }
  });

  it('refuses the variable a token_env names, even one declared in a later file', async () => {
    const wd = project();
    wd.write('a.yaml', `version: 1\ninstances:\n  prod:\n    settings:\n      spam_check_api_key: \${env:ADMIN_API_TOKEN}\n`);
    wd.write('b.yaml', 'version: 1\ninstances:\n  prod:\n    url: https://code.example.test\n    token_env: ADMIN_API_TOKEN\n');
    const r = await validate(wd, { ADMIN_API_TOKEN: APPLY_TOKEN }, ['a.yaml', 'b.yaml']);
    expect(r.code).toBe(1);
    expect(r.diagnostics).toEqual([expect.objectContaining({ code: 'PLUMB_INTERPOLATION_CREDENTIAL', file: 'a.yaml', line: 5 })]);
    expect(r.diagnostics[0]!.summary).toContain('token_env');
  });

  it('refuses a copy of a credential under another name, and a file that holds one', async () => {
    const wd = project();
    wd.write('token.txt', `${TOKEN}\n`);
    wd.write('plumb.yaml', `${HEAD}    settings:\n      spam_check_api_key: \${env:GITLAB_ADMIN}\n    projects:\n      platform/app:\n        files:\n          t.txt:\n            content: \${file:token.txt}\n`);
    const r = await validate(wd, { GITLAB_ADMIN: TOKEN });
    expect(r.code).toBe(1);
    expect(r.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['PLUMB_INTERPOLATION_CREDENTIAL', 7],
      ['PLUMB_INTERPOLATION_CREDENTIAL', 12],
    ]);
  });
});
