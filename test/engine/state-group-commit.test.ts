/**
 * The state file's group commit (StateStore.saveSoon): callers at once share one asynchronous
 * write, one write is in flight at a time, and a synchronous save that starts while an older write
 * is in flight is never overwritten by it (the file always ends with the newest records).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StateStore } from '../../src/engine/state.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function store(): { s: StateStore; file: string; dir: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-state-commit-'));
  dirs.push(dir);
  const file = path.join(dir, 'state.json');
  return { s: StateStore.open(file), file, dir };
}

const section = (file: string): Record<string, unknown> => (JSON.parse(readFileSync(file, 'utf8')) as { instances: Record<string, Record<string, Record<string, unknown>>> }).instances['https://x']!['notes']!;

describe('StateStore.saveSoon', () => {
  it('writes what every caller recorded, once per batch, and leaves no temp file', async () => {
    const { s, file, dir } = store();
    const waits: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      s.writableSection<number>('https://x', 'notes')[`k${i}`] = i;
      waits.push(s.saveSoon());
    }
    await Promise.all(waits);
    expect(Object.keys(section(file))).toHaveLength(20);
    // Records made while a write is in flight go into the next one.
    const first = s.saveSoon();
    s.writableSection<number>('https://x', 'notes').late = 1;
    const second = s.saveSoon();
    await Promise.all([first, second]);
    expect(section(file).late).toBe(1);
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('never lets an older write in flight replace a newer synchronous save', async () => {
    const { s, file, dir } = store();
    s.writableSection<number>('https://x', 'notes').a = 1;
    const pending = s.saveSoon();
    // Let the asynchronous write start (it took its snapshot), then save synchronously with more.
    await new Promise<void>((r) => setImmediate(r));
    await new Promise<void>((r) => setImmediate(r));
    s.writableSection<number>('https://x', 'notes').b = 2;
    s.save();
    await pending;
    expect(section(file)).toEqual({ a: 1, b: 2 });
    expect(readdirSync(dir)).toEqual(['state.json']);
  });
});
