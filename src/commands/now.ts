import type { Diagnostic } from '../diagnostics/index.js';

/**
 * The date plumb decides with: `--now`, else `PLUMB_NOW`, else the clock. A bare date means noon
 * UTC of that day. Shared by validate (date checks) and the reconcile commands (rotation).
 */
export function parseNow(flag: string | undefined, env: NodeJS.ProcessEnv): Date | Diagnostic {
  const fromFlag = flag !== undefined;
  const raw = flag ?? env.PLUMB_NOW;
  if (!raw) return new Date();
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(raw) ? raw + 'T12:00:00Z' : raw);
  // `new Date` rolls a day that does not exist over (2026-02-30 becomes March 2): refuse it.
  const ymd = /^(\d{4})-(\d{2})-(\d{2})/.exec(raw);
  const calendar = ymd ? new Date(Date.UTC(Number(ymd[1]), Number(ymd[2]) - 1, Number(ymd[3]))) : undefined;
  if (calendar && ymd && calendar.toISOString().slice(0, 10) !== `${ymd[1]}-${ymd[2]}-${ymd[3]}`) {
    return {
      severity: 'error',
      code: 'PLUMB_USAGE',
      summary: `${fromFlag ? '--now' : 'PLUMB_NOW'} "${raw}" is not a date: ${ymd[1]}-${ymd[2]} has no day ${Number(ymd[3])}`,
      suggestion: 'write a date that exists, as YYYY-MM-DD (e.g. the last day of that month)',
    };
  }
  if (Number.isNaN(d.getTime())) {
    return {
      severity: 'error',
      code: 'PLUMB_USAGE',
      summary: `${fromFlag ? '--now' : 'PLUMB_NOW'} "${raw}" is not a date`,
      suggestion: 'write a date as YYYY-MM-DD, or an ISO date-time such as 2026-06-01T09:00:00Z',
    };
  }
  return d;
}
