import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appSource, cdktfApp, root } from './helpers.js';

const TSCONFIG = JSON.stringify({
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] },
  include: ['*.ts'],
});

describe('plumb-gitops/cdktf props', () => {
  it('are typed: an unknown setting name fails to compile, the bundled example compiles', () => {
    const dir = cdktfApp({
      'tsconfig.json': TSCONFIG,
      'example.ts': readFileSync(path.join(root, 'examples/cdktf/main.ts'), 'utf8'),
      'bad.ts': appSource('bad', `new applicationSettings.ApplicationSettings(stack, 'settings', { signupEnabeld: false });\n`),
    });
    const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8' });
    const errors = tsc.stdout.split('\n').filter((l) => / error TS\d+/.test(l));
    expect(tsc.status).not.toBe(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^bad\.ts\(\d+,\d+\): error TS(2353|2561): .*'signupEnabeld' does not exist in type 'ApplicationSettingsConfig'/);
    // The editor and the compiler both suggest the right name.
    expect(errors[0]).toContain("Did you mean to write 'signupEnabled'?");
  });
});
