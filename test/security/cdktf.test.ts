/**
 * A CDKTF app is code from the repository (issue 18 item 2): plumb runs it only when the command
 * line says --cdktf, never finds one and runs it, gives it an allow-listed environment without the
 * instance token, and stops it (with everything it started) at --cdktf-timeout.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchArea } from '../helpers/scratch.js';
import { instanceYaml, plumb } from './harness.js';
import { goneWithin } from '../helpers/process.js';

const { project } = scratchArea('plumb-security-cdktf');


describe('a cdktf.json in a configuration directory', () => {
  it('is never run by validate or plan without --cdktf: an error names the flag, and the app does not run', () => {
    const dir = project({
      'config/plumb.yaml': instanceYaml(),
      'config/cdktf.json': JSON.stringify({ app: 'touch ../ran.marker' }),
    });
    for (const command of ['validate', 'plan', 'drift']) {
      const r = plumb([command, 'config'], dir, { PLUMB_TOKEN: 'glpat-never-sent-0123456789' });
      expect(r.status, command).toBe(1);
      expect(r.stderr, command).toContain('PLUMB_CDKTF_NOT_ENABLED');
      expect(r.stderr, command).toContain('--cdktf config');
      expect(existsSync(path.join(dir, 'ran.marker')), command).toBe(false);
    }
  });
});

describe('a CDKTF app run with --cdktf', () => {
  it('gets no token variable in its environment: not PLUMB_TOKEN, not the one token_env names, no *_TOKEN', () => {
    const dir = project({ 'cdktf.json': JSON.stringify({ app: 'env > env.txt; exit 3' }) });
    const r = plumb(['validate', '--cdktf', '.'], dir, {
      PLUMB_TOKEN: 'glpat-plumb-token-0123456789',
      INSTANCE_CRED: 'glpat-token-env-0123456789',
      CI_JOB_TOKEN: 'job-token-0123456789',
      NODE_OPTIONS: '--no-warnings',
      PLUMB_CDKTF_ENV: 'STAGE',
      STAGE: 'production',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PLUMB_CDKTF_SYNTH');
    const env = readFileSync(path.join(dir, 'env.txt'), 'utf8');
    expect(env).not.toContain('glpat-');
    expect(env).not.toContain('job-token');
    expect(env).not.toMatch(/^(PLUMB_TOKEN|INSTANCE_CRED|CI_JOB_TOKEN)=/m);
    // What a build needs, and what the operator listed, does reach it.
    expect(env).toMatch(/^PATH=/m);
    expect(env).toMatch(/^NODE_OPTIONS=--no-warnings$/m);
    expect(env).toMatch(/^STAGE=production$/m);
    expect(env).toMatch(/^CDKTF_OUTDIR=/m);
  });

  it('is not run when PLUMB_CDKTF_ENV lists a secret variable (TF_VAR_*, a credential by its name, PLUMB_*): an error names them', () => {
    const dir = project({ 'cdktf.json': JSON.stringify({ app: 'touch ran.marker; exit 3' }) });
    const r = plumb(['validate', '--cdktf', '.'], dir, { PLUMB_CDKTF_ENV: 'STAGE, TF_VAR_db_password,DEPLOY_TOKEN', STAGE: 'production', TF_VAR_db_password: 'db-password-0123456789', DEPLOY_TOKEN: 'glpat-deploy-0123456789' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_CDKTF_ENV]: PLUMB_CDKTF_ENV lists TF_VAR_db_password, DEPLOY_TOKEN, which hold a secret the CDKTF app must not receive; the app was not run');
    expect(r.stderr).not.toContain('db-password-0123456789');
    expect(existsSync(path.join(dir, 'ran.marker'))).toBe(false);
  });

  it('that PLUMB_CDKTF_ENV handed a variable the configuration uses as a secret (its token_env) is an error after the synth', () => {
    const stack = { provider: { plumb: [{ url: 'https://code.example.com', token_env: 'PROD_CRED' }] }, resource: { plumb_application_settings: { settings: { '//': { metadata: { path: 'prod/settings' } }, signup_enabled: false } } } };
    const synth = [
      "import { mkdirSync, writeFileSync } from 'node:fs';",
      'const out = process.env.CDKTF_OUTDIR;',
      "mkdirSync(out + '/stacks/prod', { recursive: true });",
      "writeFileSync(out + '/manifest.json', JSON.stringify({ stacks: { prod: { name: 'prod', synthesizedStackPath: 'stacks/prod/cdk.tf.json' } } }));",
      `writeFileSync(out + '/stacks/prod/cdk.tf.json', ${JSON.stringify(JSON.stringify(stack))});`,
      "writeFileSync('seen.txt', String(process.env.PROD_CRED));",
    ].join('\n');
    const dir = project({ 'cdktf.json': JSON.stringify({ app: 'node synth.mjs' }), 'synth.mjs': synth });
    const env = { PROD_CRED: 'glpat-prod-cred-0123456789' };
    expect(plumb(['validate', '--cdktf', '.'], dir, env).status).toBe(0);
    const r = plumb(['validate', '--cdktf', '.'], dir, { ...env, PLUMB_CDKTF_ENV: 'PROD_CRED' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_CDKTF_ENV]: PLUMB_CDKTF_ENV handed PROD_CRED to the CDKTF app, and the configuration uses its value as a secret');
    expect(r.stderr).not.toContain('glpat-prod-cred');
  });

  it('that never ends is stopped at --cdktf-timeout, with everything it started, and reported at its app command', () => {
    const dir = project({ 'cdktf.json': '{\n  "language": "typescript",\n  "app": "sleep 1000 & echo $! > bg.pid; echo synthesizing; sleep 1000"\n}\n' });
    const r = plumb(['validate', '--cdktf', '.', '--cdktf-timeout', '1'], dir, {}, 30_000);
    expect(r.signal).toBeNull();
    expect(r.ms).toBeLessThan(15_000);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_CDKTF_SYNTH]: The CDKTF app in . did not finish synthesizing within 1 s');
    expect(r.stderr).toContain('--> cdktf.json:3:3');
    expect(r.stderr).toContain('synthesizing');
    const pid = Number(readFileSync(path.join(dir, 'bg.pid'), 'utf8'));
    expect(goneWithin(pid, 5_000)).toBe(true);
  });

  it('refuses a --cdktf-timeout that is not a number of seconds, or given without --cdktf', () => {
    const dir = project({ 'plumb.yaml': instanceYaml() });
    expect(plumb(['validate', '--cdktf', '.', '--cdktf-timeout', 'soon'], dir).stderr).toContain('--cdktf-timeout must be a number of seconds');
    expect(plumb(['validate', 'plumb.yaml', '--cdktf-timeout', '5'], dir).stderr).toContain('--cdktf-timeout applies only with --cdktf DIR');
  });
});
