/**
 * A loopback HTTP hop in front of the emulator that records each request with its headers and
 * body, so a test can assert what plumb sent (the fields of a PATCH, its content type, the token
 * header) without the emulator having to keep bodies.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  readonly method: string;
  /** Path after /api/v4, percent-encoding kept. */
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly status: number;
}

export interface Recorder {
  readonly url: string;
  readonly requests: Recorded[];
  close(): Promise<void>;
}

export async function recorder(target: string): Promise<Recorder> {
  const requests: Recorded[] = [];
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const out = http.request(
        { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } },
        (answer) => {
          const path = (req.url ?? '').split('?')[0]!.replace(/^\/api\/v4/, '');
          requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body: body.toString('utf8'), status: answer.statusCode ?? 0 });
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
