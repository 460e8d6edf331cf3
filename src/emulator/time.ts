/** Date helpers: datetimes are ISO 8601 with milliseconds and Z; dates are YYYY-MM-DD (UTC). */

export function isoDateTime(d: Date): string {
  return d.toISOString();
}

export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` `days` after the UTC date of `d`. */
export function addDays(d: Date, days: number): string {
  const base = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return isoDate(new Date(base + days * 86_400_000));
}

/** Parses a strict calendar date; undefined when invalid (2024-02-30 is invalid). */
export function parseDate(value: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (Number.isNaN(d.getTime()) || isoDate(d) !== `${m[1]}-${m[2]}-${m[3]}`) return undefined;
  return isoDate(d);
}

/** Parses an ISO 8601 datetime (or a bare date, read as midnight UTC). */
export function parseDateTime(value: string): Date | undefined {
  const v = value.trim();
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) return undefined;
  const d = new Date(v.length === 10 ? `${v}T00:00:00Z` : v.replace(' ', 'T'));
  return Number.isNaN(d.getTime()) ? undefined : d;
}
