/**
 * The declared content of a file: its SHA-256 computed streaming (memory does not grow with the
 * file's size beyond one read buffer), and the bytes themselves when apply writes them.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { DesiredFile } from './model.js';

/** One read buffer: what hashing a source holds in memory at a time. */
const CHUNK = 64 * 1024;

export async function contentSha256(file: DesiredFile): Promise<string> {
  if (file.source === undefined) return createHash('sha256').update(file.content ?? Buffer.alloc(0)).digest('hex');
  const hash = createHash('sha256');
  const fh = await openSource(file.source);
  try {
    for await (const chunk of fh.createReadStream({ highWaterMark: CHUNK, autoClose: false })) hash.update(chunk as Buffer);
  } finally {
    await fh.close();
  }
  return hash.digest('hex');
}

/**
 * A source checked when the configuration was loaded (src/config/files.ts), opened again the same
 * way: without following a link or waiting on a FIFO that replaced it since, and still a regular file.
 */
async function openSource(source: string): Promise<FileHandle> {
  const fh = await open(source, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  if (!(await fh.stat()).isFile()) {
    await fh.close();
    throw Object.assign(new Error(`${source} is no longer a regular file`), { code: 'EINVAL' });
  }
  return fh;
}

/** The declared content itself, for a write (a source is read whole: the request body holds it anyway). */
export async function contentBytes(file: DesiredFile): Promise<Buffer> {
  if (file.source === undefined) return file.content ?? Buffer.alloc(0);
  const fh = await openSource(file.source);
  try {
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/** Text is sent as text; anything that is not UTF-8 or holds a NUL byte is sent as base64. */
export function isText(data: Buffer): boolean {
  if (data.includes(0)) return false;
  return Buffer.from(data.toString('utf8'), 'utf8').equals(data);
}

/** The declared content's size in bytes, without reading it. */
export async function contentSize(file: DesiredFile): Promise<number> {
  if (file.source === undefined) return file.content?.length ?? 0;
  const fh = await openSource(file.source);
  try {
    return (await fh.stat()).size;
  } finally {
    await fh.close();
  }
}
