/** Calendar days (YYYY-MM-DD, UTC), shared by the token kind's rotation and the HTML page's timeline. */

const DAY = 86_400_000;

function utc(date: string): number {
  const [y, m, d] = date.slice(0, 10).split('-').map(Number);
  return Date.UTC(y!, m! - 1, d!);
}

/** Whole days from `from` to `to` (both YYYY-MM-DD, or ISO datetimes read by their date); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((utc(to) - utc(from)) / DAY);
}
