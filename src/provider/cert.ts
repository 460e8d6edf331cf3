/**
 * A self-signed X.509 certificate for go-plugin's automatic mutual TLS, made with node:crypto.
 *
 * Node 20 can make keys and signatures but has no certificate builder (crypto.X509Certificate only
 * parses), so the DER is assembled here: a v3 certificate for "localhost" (go-plugin's client
 * checks that name), valid for a day around now, ECDSA P-256 with SHA-256, usable as its own CA
 * (the client puts it in its root pool) for server and client authentication. About a hundred
 * lines instead of a dependency; a test parses the result with crypto.X509Certificate and checks
 * its signature.
 */
import { X509Certificate, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

export interface ServerCertificate {
  /** PEM, for the TLS server. */
  readonly certPem: string;
  readonly keyPem: string;
  /** DER, base64 without padding: the handshake line's last field. */
  readonly handshakeCert: string;
}

// --- DER encoding ----------------------------------------------------------------------------

function tlv(tag: number, body: Buffer): Buffer {
  const len = body.length;
  let head: Buffer;
  if (len < 0x80) head = Buffer.from([tag, len]);
  else {
    const bytes: number[] = [];
    for (let n = len; n > 0; n >>= 8) bytes.unshift(n & 0xff);
    head = Buffer.from([tag, 0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([head, body]);
}

const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const explicit = (n: number, inner: Buffer) => tlv(0xa0 + n, inner);
const octets = (b: Buffer) => tlv(0x04, b);
const bitString = (b: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), b]));
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));

function integer(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0 && b[i + 1]! < 0x80) i++;
  const body = b.subarray(i);
  return tlv(0x02, body[0]! >= 0x80 ? Buffer.concat([Buffer.from([0]), body]) : body);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const chunk = [p & 0x7f];
    for (let n = p >>> 7; n > 0; n >>>= 7) chunk.unshift(0x80 | (n & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(d: Date): Buffer {
  const p = (n: number) => String(n).padStart(2, '0');
  const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return tlv(0x17, Buffer.from(s, 'ascii'));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';

// --- the certificate ---------------------------------------------------------------------------

/** Makes a fresh key pair and a self-signed certificate for "localhost" and 127.0.0.1. */
export function makeServerCertificate(now = new Date()): ServerCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const name = seq(set(seq(oid('2.5.4.10'), utf8('plumb'))), set(seq(oid('2.5.4.3'), utf8('localhost'))));
  const algorithm = seq(oid(ECDSA_WITH_SHA256));
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    algorithm,
    name,
    seq(utcTime(new Date(now.getTime() - 60_000)), utcTime(new Date(now.getTime() + 24 * 3600_000))),
    name,
    spki,
    explicit(
      3,
      seq(
        extension('2.5.29.19', true, seq(bool(true))), // basicConstraints: CA
        extension('2.5.29.15', true, bitString(Buffer.from([0xa4]))), // keyUsage: digitalSignature, keyEncipherment, keyCertSign
        extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'), oid('1.3.6.1.5.5.7.3.2'))), // serverAuth, clientAuth
        extension('2.5.29.17', false, seq(tlv(0x82, Buffer.from('localhost')), tlv(0x87, Buffer.from([127, 0, 0, 1])))), // SAN
      ),
    ),
  );
  const signature = sign('sha256', tbs, privateKey as KeyObject);
  const der = seq(tbs, algorithm, bitString(signature));
  const cert = new X509Certificate(der);
  return {
    certPem: cert.toString(),
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    handshakeCert: der.toString('base64').replace(/=+$/, ''),
  };
}
