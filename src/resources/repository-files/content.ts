/**
 * The declared content of a file: its SHA-256 computed streaming (memory does not grow with the
 * file's size beyond one read buffer), and the bytes themselves when apply writes them.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { DesiredFile } from '../../config/model.js';

/** One read buffer: what hashing a source holds in memory at a time. */
const CHUNK = 64 * 1024;

export async function contentSha256(file: DesiredFile): Promise<string> {
  if (file.source === undefined) return createHash('sha256').update(file.content ?? Buffer.alloc(0)).digest('hex');
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file.source, { highWaterMark: CHUNK })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The declared content itself, for a write (a source is read whole: the request body holds it anyway). */
export async function contentBytes(file: DesiredFile): Promise<Buffer> {
  return file.source === undefined ? (file.content ?? Buffer.alloc(0)) : readFile(file.source);
}

/** Text is sent as text; anything that is not UTF-8 or holds a NUL byte is sent as base64. */
export function isText(data: Buffer): boolean {
  if (data.includes(0)) return false;
  return Buffer.from(data.toString('utf8'), 'utf8').equals(data);
}

/** The declared content's size in bytes, without reading it. */
export async function contentSize(file: DesiredFile): Promise<number> {
  return file.source === undefined ? (file.content?.length ?? 0) : (await stat(file.source)).size;
}
