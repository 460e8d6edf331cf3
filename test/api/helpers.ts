/** Test helpers for the HTTP client: a tiny `node:http` server for the few shapes the emulator cannot produce. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import diagnosticsChannel from 'node:diagnostics_channel';

export interface TinyRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface TinyServer {
  readonly url: string;
  readonly requests: TinyRequest[];
  close(): Promise<void>;
}

export type TinyHandler = (req: TinyRequest, res: http.ServerResponse) => void;

export async function startTinyServer(handler: TinyHandler): Promise<TinyServer> {
  const requests: TinyRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: TinyRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      handler(seen, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Collects the messages published on a diagnostics channel until `stop()`. */
export function recordChannel<T>(name: string): { readonly messages: T[]; stop(): void } {
  const messages: T[] = [];
  const listener = (message: unknown): void => {
    messages.push(message as T);
  };
  diagnosticsChannel.subscribe(name, listener);
  return { messages, stop: () => diagnosticsChannel.unsubscribe(name, listener) };
}

/** A sleep that returns at once and remembers what it was asked to wait. */
export function fastSleep(): { readonly waits: number[]; sleep(ms: number): Promise<void> } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
    },
  };
}

/** The rejection of `p`, failing the test if `p` resolves. */
export async function rejection<E = Error>(p: Promise<unknown>): Promise<E> {
  try {
    await p;
  } catch (err) {
    return err as E;
  }
  throw new Error('expected a rejection');
}
