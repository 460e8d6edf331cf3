/** A dotted-quad IPv4 address (what `URL.hostname` makes of any IPv4 spelling), as `net.isIPv4` reads it. */
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * 127.0.0.0/8, ::1 (and IPv4-mapped 127/8), `localhost`. Expects `URL.hostname` (IPv6 in brackets).
 * Without node:net, which would load node's streams and sockets into every `plumb validate`.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host === 'localhost.') return true;
  if (IPV4.test(host)) return host.startsWith('127.');
  if (host === '::1') return true;
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(host);
  if (mapped?.[1] !== undefined) return Number.parseInt(mapped[1], 16) >> 8 === 127;
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
  return dotted?.[1] !== undefined && IPV4.test(dotted[1]) && dotted[1].startsWith('127.');
}

/**
 * The one spelling of an instance's base URL, to tell two spellings of one instance apart from two
 * instances: scheme and host in lower case (URL does it), no default port, no trailing or doubled
 * slash, no `/api/v4` suffix (the client adds it). `undefined` when it is not an absolute URL.
 */
export function canonicalInstanceUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const path = url.pathname.replace(/\/{2,}/g, '/').replace(/\/+$/, '').replace(/\/api\/v4$/i, '');
  return `${url.protocol}//${url.host.replace(/\.$/, '')}${path}`;
}
