/**
 * The command line itself, in-process through `main`: every command answers --help/-h with its own
 * usage, every command takes the common options, and a mistake on the command line is reported in
 * the diagnostic format (code, what, how to fix), never as the argument parser's own message.
 */
import { describe, expect, it } from 'vitest';
import { workdir } from '../helpers/cli.js';

const CONFIG = `version: 1
instances:
  main:
    url: https://code.example.com
    token_env: PLUMB_TOKEN
    groups:
      platform:
        access_tokens:
          ci: {scopes: [api], expires_at: 2030-01-01, sink: {stdout: true}}
`;

function project() {
  const w = workdir();
  w.write('plumb.yaml', CONFIG);
  return w;
}

describe('plumb <command> --help', () => {
  for (const command of ['validate', 'plan', 'apply', 'drift', 'export', 'show', 'emulator']) {
    for (const flag of ['--help', '-h']) {
      it(`prints the usage of ${command} for ${flag} and exits 0`, async () => {
        const r = await project().run([command, flag]);
        expect(r.code).toBe(0);
        expect(r.stdout).toContain(`Usage: plumb ${command}`);
        expect(r.stderr).toBe('');
      });
    }
  }

  it('lists the common options in the usage of every configuration command', async () => {
    for (const command of ['validate', 'plan', 'apply', 'drift']) {
      const r = await project().run([command, '--help']);
      for (const option of ['-c, --config', '--instance', '--now', '--state', '--concurrency', '--debug', '--json']) expect(r.stdout).toContain(option);
    }
  });
});

describe('plumb validate takes the common options', () => {
  it('accepts -c, --instance, --now, --state, --concurrency, --debug and --json', async () => {
    const r = await project().run(['validate', '-c', 'plumb.yaml', '--instance', 'main', '--now', '2026-06-01', '--state', 'x.json', '--concurrency', '4', '--debug', '--json']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ valid: true });
    expect(r.code).toBe(0);
  });

  it('checks dates against PLUMB_NOW, and --now over PLUMB_NOW', async () => {
    const w = project();
    const late = await w.run(['validate'], { PLUMB_NOW: '2031-01-01' });
    expect(late.code).toBe(1);
    expect(late.stderr).toContain('PLUMB_TOKEN_EXPIRES_IN_PAST');
    expect((await w.run(['validate', '--now', '2026-06-01'], { PLUMB_NOW: '2031-01-01' })).code).toBe(0);
  });

  it('refuses an --instance the configuration does not declare', async () => {
    const r = await project().run(['validate', '--instance', 'staging']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_INSTANCE_UNKNOWN]');
    expect(r.stderr).toContain('help: use one of: main');
  });
});

describe('command-line mistakes are diagnostics', () => {
  it('names an unknown option, suggests the closest one and points at the usage', async () => {
    const r = await project().run(['validate', '--jsn']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_USAGE]: Unknown option "--jsn" for plumb validate');
    expect(r.stderr).toContain('help: did you mean "--json"? (plumb validate --help lists the options)');
    expect(r.stderr).not.toMatch(/To specify a positional argument|ERR_PARSE_ARGS|'--/);
  });

  it('says which option lacks its value', async () => {
    for (const command of ['validate', 'plan', 'drift']) {
      const r = await project().run([command, '--now']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`error[PLUMB_USAGE]: Option --now of plumb ${command} needs a value`);
    }
  });

  it('refuses a --now that is not a date, in the diagnostic format, for validate as for plan', async () => {
    for (const command of ['validate', 'plan']) {
      const r = await project().run([command, '--now', 'tomorrow']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('error[PLUMB_USAGE]: --now "tomorrow" is not a date');
      expect(r.stderr).toContain('help: write a date as YYYY-MM-DD');
    }
  });

  it('refuses a --concurrency out of range for every command that takes it', async () => {
    for (const command of ['validate', 'plan', 'apply', 'drift']) {
      const r = await project().run([command, '--concurrency', '0']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('error[PLUMB_USAGE]: --concurrency must be a whole number from 1 to 64, not "0"');
    }
  });

  it('says what a numeric option takes when it is given a negative number, not that it "needs a value"', async () => {
    for (const command of ['plan', 'apply']) {
      const r = await project().run([command, '--max-changes', '-1']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('error[PLUMB_USAGE]: --max-changes must be a whole number of 1 or more, not "-1"');
      expect(r.stderr).not.toContain('needs a value');
    }
    const c = await project().run(['validate', '--concurrency', '-3']);
    expect(c.stderr).toContain('error[PLUMB_USAGE]: --concurrency must be a whole number from 1 to 64, not "-3"');
  });

  it('refuses a --max-match-change over 100: no selector can lose more than all of its matches', async () => {
    const r = await project().run(['plan', '--max-match-change', '150']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_USAGE]: --max-match-change must be a whole number of percent from 0 to 100, not "150"');
    expect(r.stderr).toContain('loses every match moves by 100%');
  });

  it('reports an unknown command with the commands there are', async () => {
    const r = await project().run(['valiate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_USAGE]: Unknown command "valiate"');
    expect(r.stderr).toContain('help: did you mean "validate"?');
  });

  it('reports an unknown emulator option in the same format', async () => {
    const r = await project().run(['emulator', '--prot', '8929']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_USAGE]: Unknown option "--prot" for plumb emulator');
    expect(r.stderr).toContain('did you mean "--port"?');
  });

  it('reports a bad emulator option value in the same format', async () => {
    const r = await project().run(['emulator', '--port', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_USAGE]: --port must be a whole number from 0 to 65535, not "x"');
    const t = await project().run(['emulator', '--tier', 'premum']);
    expect(t.stderr).toContain('did you mean "premium"?');
  });

  it('says in a sentence why a plan file cannot be applied', async () => {
    const w = project();
    const missing = await w.run(['apply', 'nope.json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('error[PLUMB_PLAN_UNREADABLE]: Cannot read the plan file nope.json: it does not exist');
    expect(missing.stderr).not.toContain('ENOENT');
    w.write('broken.json', '{');
    expect((await w.run(['apply', 'broken.json'])).stderr).toContain('Cannot read the plan file broken.json: it is not JSON');
    w.write('other.json', '{"a": 1}');
    expect((await w.run(['apply', 'other.json'])).stderr).toContain('error[PLUMB_PLAN_INVALID]: other.json is not a plan plumb can apply');
  });
});
