/** Merging the files into one configuration: maps merge key by key, a resource or a leaf is owned by one file. */
import { joinPointer } from './pointer.js';
import { describePointer, isResourceLevel } from './places.js';
import { isPlainObject } from './loading.js';
import type { PendingDiagnostic } from './loading.js';
import type { LocationIndex } from './locations.js';
import type { KindPointer } from './pointer.js';

/** Deep-merges one file's data into the merged configuration; a value defined twice is an error naming both places. */
export function mergeInto(
  target: Record<string, unknown>,
  source: Record<string, unknown>,
  pointer: string,
  fileIndex: number,
  locations: LocationIndex,
  pending: PendingDiagnostic[],
  places: readonly KindPointer[],
): void {
  for (const [key, value] of Object.entries(source)) {
    const child = joinPointer(pointer, key);
    if (!(key in target)) {
      target[key] = value;
      continue;
    }
    const existing = target[key];
    if (isPlainObject(existing) && isPlainObject(value) && !isResourceLevel(child, places)) {
      mergeInto(existing, value, child, fileIndex, locations, pending, places);
      continue;
    }
    // An empty block (`settings:` with nothing under it) next to a real one: not a second
    // definition. The empty one is still wrong where it is written.
    if (!isResourceLevel(child, places) && (existing === null) !== (value === null) && (isPlainObject(existing) || isPlainObject(value))) {
      if (existing === null) target[key] = value;
      pending.push({
        severity: 'error',
        code: 'PLUMB_TYPE_MISMATCH',
        summary: `${describePointer(child, places)} is empty here`,
        detail: 'An empty block is null in YAML, not a mapping; the definition in another file is used.',
        suggestion: 'remove the empty key, or indent its content under it',
        pointer: child,
        fileIndex: existing === null ? (locations.ownerOf(child) ?? fileIndex) : fileIndex,
      });
      continue;
    }
    if (key === 'version' && pointer === '' && existing === value) continue;
    const first = locations.get(child);
    pending.push({
      severity: 'error',
      code: 'PLUMB_DUPLICATE_RESOURCE',
      summary: `${describePointer(child, places)} is defined twice`,
      detail: 'Each setting, token, file and Pages block may be declared in one place only; plumb does not guess which definition wins.',
      suggestion: 'keep one of the two definitions',
      pointer: child,
      fileIndex,
      on: 'key',
      related: [{ message: 'first defined here', location: first?.key ?? first?.value }],
    });
  }
}
