/**
 * The kinds' places in the configuration (`KindPointer`, from the registry): which maps are
 * resources (defined in one file only), where `${…}` may be written, and a place's name for people.
 */
import { joinPointer, matchesPattern, splitPointer } from './pointer.js';
import type { KindPointer } from './pointer.js';

/** Whether `${…}` may be written at `pointer`: the kinds' places say (KindPointer.interpolation). */
export function interpolationAllowed(pointer: string, places: readonly KindPointer[]): boolean {
  const segs = asInstanceSegments(splitPointer(pointer));
  return places.some((k) => {
    if (!k.interpolation || !matchesPattern(k.pattern, segs)) return false;
    const rest = segs.slice(k.pattern.length);
    return k.interpolation.some((sub) => matchesPattern(sub, rest));
  });
}

/** `defaults` holds what an instance holds: its places are an instance's, for matching. */
export function asInstanceSegments(segs: readonly string[]): readonly string[] {
  return segs[0] === 'defaults' ? ['instances', '(defaults)', ...segs.slice(1)] : segs;
}

export function isResourceLevel(pointer: string, places: readonly KindPointer[]): boolean {
  const segs = asInstanceSegments(splitPointer(pointer));
  // Maps at these pointers are resources: defined in one place only (see KindPointer.resource).
  return places.some((k) => k.resource && k.pattern.length === segs.length && matchesPattern(k.pattern, segs));
}

/** A readable name for a place in the configuration, for messages: the exact key, then its owner. */
export function describePointer(pointer: string, places: readonly KindPointer[]): string {
  const segs = splitPointer(pointer);
  if (segs[0] === 'defaults') {
    if (segs.length === 1) return 'the defaults block';
    const inner = describePointer(joinPointer('/instances/(defaults)', ...segs.slice(1)), places);
    return inner.includes('instance "(defaults)"') ? inner.replace('instance "(defaults)"', 'the defaults block') : `${inner} in defaults`;
  }
  const s = segs;
  if (s[0] !== 'instances' || s.length < 2) return pointer === '' ? 'the configuration' : `"${s.at(-1) ?? pointer}"`;
  const inst = `instance "${s[1]}"`;
  let base: string;
  let used: number;
  const owner = places.find((k) => matchesPattern(k.pattern, s));
  if (owner) [base, used] = [owner.describe(s), owner.pattern.length];
  else if ((s[2] === 'groups' || s[2] === 'projects') && s[3] !== undefined) [base, used] = [`${s[2] === 'groups' ? 'group' : 'project'} "${s[3]}"`, 4];
  else if (s.length >= 3) [base, used] = [inst, 2];
  else return inst;
  const rest = s.slice(used);
  if (rest.length === 0) return base;
  const last = rest.at(-1)!;
  if (/^\d+$/.test(last) && rest.length >= 2) return `item ${Number(last) + 1} of "${rest.at(-2)}" of ${base}`;
  return `"${last}" of ${base}`;
}
