/**
 * Where a misplaced key belongs, for the schema pass's help: read from the configuration's schema
 * and the kinds' mounts (src/config/key-places.ts), not from a list of the built-in kinds' places.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUILT_IN_CONFIG_KINDS, loadConfig } from '../helpers/kinds.js';
import { keyPlaces } from '../../src/config/key-places.js';
import { committedSchema } from '../../src/config/schema-errors.js';

function suggestion(yaml: string): string | undefined {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-key-places-'));
  writeFileSync(path.join(dir, 'plumb.yaml'), `version: 1\ninstances:\n  main:\n    url: https://code.example.com\n    token_env: PLUMB_TOKEN\n${yaml}`);
  const r = loadConfig([path.join(dir, 'plumb.yaml')], { cwd: dir });
  return r.diagnostics.find((d) => d.code === 'PLUMB_UNKNOWN_KEY')?.suggestion;
}

describe('where a misplaced key belongs', () => {
  it('is named for every place of the built-in kinds, from their mounts and their schema fragments', () => {
    const where = keyPlaces(committedSchema(), BUILT_IN_CONFIG_KINDS.configs).map((p) => p.where);
    expect(where).toEqual(
      expect.arrayContaining([
        'directly under an instance (next to url and token_env)',
        'under a group (next to access_tokens and variables)',
        'under a project (next to protected_branches, files, pages and variables)',
        'under `protected_branches.<name>:` of a project',
        'under `access_tokens.<name>.rotation:` of a group',
        'under `access_tokens.<name>.sink:` of a group',
        'under `files.<name>:` of a project',
        'under `pages:` of a project',
        'under `variables.<name>:` of a project',
        'under `variables.<name>.scopes.<name>:` of a group',
      ]),
    );
  });

  it('sends a key of a token\'s rotation, a file and Pages to their place', () => {
    expect(suggestion('    rotate_before_days: 7\n')).toBe('move it under `access_tokens.<name>.rotation:` of a group');
    expect(suggestion('    groups:\n      ops:\n        execute_filemode: true\n')).toBe('move it under `files.<name>:` of a project');
    expect(suggestion('    projects:\n      ops/site:\n        pages_https_only: true\n')).toBe('move it under `pages:` of a project');
    expect(suggestion('    projects:\n      ops/site:\n        allow_force_push: true\n')).toBe('move it under `protected_branches.<name>:` of a project');
  });
});
