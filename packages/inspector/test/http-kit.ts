// Raw HTTP for the inspector's security tests: requests with any Host and
// Origin (fetch cannot set Host), and small servers that record what they got.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a raw request got back. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Sends one request to `url` with exactly `headers` (Host included when given). */
export function rawRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
  const { hostname, port, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname.replace(/^\[(.*)\]$/, '$1'), port, path: `${pathname}${search}`, method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A server that records every request it gets (method, path, headers). */
export interface RecordingServer {
  readonly url: string;
  readonly port: number;
  readonly requests: { method: string; path: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

/** Starts a {@link RecordingServer} on 127.0.0.1 answering with `handler`. */
export async function recordingServer(handler: (req: IncomingMessage, res: ServerResponse, base: string) => void): Promise<RecordingServer> {
  const requests: RecordingServer['requests'] = [];
  let base = '';
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => handler(req, res, base));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    port,
    requests,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
