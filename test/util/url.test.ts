/**
 * isLoopbackHost tells IP literals apart without node:net (which a cold `plumb validate` should not
 * load): it must answer as the check built on node:net's isIP did, for every spelling of a host.
 */
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/util/url.js';

/** The check as it was, on node:net's isIP. */
function withNodeNet(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host === 'localhost.') return true;
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.');
  if (family === 6) {
    if (host === '::1') return true;
    const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(host);
    if (mapped?.[1] !== undefined) return Number.parseInt(mapped[1], 16) >> 8 === 127;
    const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
    return dotted?.[1] !== undefined && dotted[1].startsWith('127.');
  }
  return false;
}

const HOSTS = [
  'localhost', 'LOCALHOST', 'localhost.', 'localhost.example.com', '127.0.0.1', '127.255.255.255', '127.0.0.1.nip.io',
  '127.000.000.001', '127.1', '127.0.0.256', '0x7f.0.0.1', '128.0.0.1', '10.0.0.1', '::1', '[::1]', '[::2]', '::',
  '::ffff:127.0.0.1', '[::ffff:127.0.0.1]', '::ffff:7f00:1', '[::ffff:7f00:1]', '::ffff:8000:1', '::ffff:1.2.3.4',
  '1:2:3:4:5:6:7:8', '1::2::3', ':::1', '::1%lo', 'fe80::1%eth0', '[::1]:80', 'code.example.com', '', '[]', '::ffff:127.0.0.1.5',
];

describe('isLoopbackHost', () => {
  it('answers as node:net isIP would, for every spelling of a host', () => {
    for (const host of HOSTS) expect([host, isLoopbackHost(host)]).toEqual([host, withNodeNet(host)]);
  });
});
