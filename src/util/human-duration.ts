/**
 * Human-readable durations as the service reads them (its ChronicDuration settings, such as
 * `archive_builds_in_human_readable`): `1 day`, `2 weeks 3 days`, `12h`, `90` (seconds). Shared by
 * plumb's offline check and the emulator, so both read a value the same way.
 */
const DURATION_UNITS: readonly [RegExp, number][] = [
  [/^(s|secs?|seconds?)$/, 1],
  [/^(m|mins?|minutes?)$/, 60],
  [/^(h|hrs?|hours?)$/, 3600],
  [/^(d|days?)$/, 86_400],
  [/^(w|wks?|weeks?)$/, 7 * 86_400],
  [/^(mo|mos|months?)$/, 30 * 86_400],
  [/^(y|yrs?|years?)$/, 365.25 * 86_400],
];

/** Seconds of a duration like `1 day`, `2 weeks 3 days`, `12h`, `90` (seconds); undefined when unreadable. */
export function humanDurationSeconds(text: string): number | undefined {
  const parts = text.trim().toLowerCase().replace(/\band\b|,/g, ' ').match(/\d+(?:\.\d+)?|[a-z]+/g);
  if (!parts || parts.length === 0) return undefined;
  let total = 0;
  for (let i = 0; i < parts.length; i++) {
    const n = Number(parts[i]);
    if (Number.isNaN(n)) return undefined;
    const unit = parts[i + 1];
    if (unit === undefined || /^\d/.test(unit)) {
      total += n; // a bare number is seconds
      continue;
    }
    const factor = DURATION_UNITS.find(([re]) => re.test(unit))?.[1];
    if (factor === undefined) return undefined;
    total += n * factor;
    i++;
  }
  return total;
}

