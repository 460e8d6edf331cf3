/**
 * Collapsible sections of the service's job log (docs/ci.md#the-job-log): when `GITLAB_CI` is set,
 * plumb's human output is grouped under headers the log viewer can fold. A section is two marker
 * lines, `\e[0Ksection_start:UNIX_SECONDS:NAME[collapsed=true]\r\e[0KHeader` and
 * `\e[0Ksection_end:UNIX_SECONDS:NAME\r\e[0K`; anywhere else they are not written at all.
 */
import type { Io } from './output.js';

export interface LogSections {
  start(name: string, header: string, collapsed?: boolean): void;
  end(name: string): void;
}

const NONE: LogSections = { start() {}, end() {} };

/** Sections on `write` (the stream the section's content goes to) when the job runs in the service's CI. */
export function logSections(io: Pick<Io, 'env'>, write: (s: string) => void, clock: () => number = Date.now): LogSections {
  if (!io.env.GITLAB_CI) return NONE;
  const t = () => Math.floor(clock() / 1000);
  return {
    start(name, header, collapsed = false) {
      write(`\x1b[0Ksection_start:${t()}:${name}${collapsed ? '[collapsed=true]' : ''}\r\x1b[0K${header.replace(/[\r\n]+/g, ' ')}\n`);
    },
    end(name) {
      write(`\x1b[0Ksection_end:${t()}:${name}\r\x1b[0K\n`);
    },
  };
}
