// Plain HTTP(S) servers on 127.0.0.1 that record what they receive (an origin each), a self-signed
// certificate made by openssl, and the `taskwire` CLI run as a real process: for the credential-origin
// and hostile-agent tests.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** One request an origin received. */
export interface Seen {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A recording server: its origin, what it received, and how it answers. */
export interface Origin {
  readonly url: string;
  readonly seen: Seen[];
  close(): Promise<void>;
}

/** Answers one request of an {@link Origin}. */
export type Handler = (request: Seen, response: ServerResponse) => void;

/** Serves `handle` on a free port of 127.0.0.1 (over TLS when `tls` is given), recording every request. */
export async function origin(handle: Handler, tls?: { key: string; cert: string }): Promise<Origin> {
  const seen: Seen[] = [];
  const listener = (req: import('node:http').IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body };
      seen.push(request);
      handle(request, res);
    });
  };
  const server: Server = tls ? createHttpsServer(tls, listener) : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** Answers JSON. */
export function json(response: ServerResponse, value: unknown, status = 200): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

/** Answers a redirect to `location`. */
export function redirect(response: ServerResponse, status: number, location: string): void {
  response.writeHead(status, { location }).end();
}

/** Answers any JSON-RPC request as a ListTasks with no tasks (a stand-in agent endpoint). */
export function emptyListTasks(request: Seen, response: ServerResponse): void {
  const id = (JSON.parse(request.body || '{}') as { id?: unknown }).id ?? null;
  json(response, { jsonrpc: '2.0', id, result: { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 } });
}

/** Whether a request carried a credential header. */
export const carried = (request: { headers: Readonly<Record<string, unknown>> }): boolean =>
  request.headers['x-api-key'] !== undefined || request.headers.authorization !== undefined;

/** A self-signed certificate for 127.0.0.1, made by openssl; `certFile` is its path (for NODE_EXTRA_CA_CERTS). */
export async function selfSignedCert(): Promise<{ key: string; cert: string; certFile: string; dispose(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'taskwire-tls-'));
  const [keyFile, certFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  await promisify(execFile)('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile,
  ]);
  return { key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8'), certFile, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** What a CLI process did. */
export interface CliRun {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** Runs the real `taskwire` entry (src/cli.ts through tsx) with `args`, in a fresh home folder. */
export async function runCli(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<CliRun> {
  const home = await mkdtemp(join(tmpdir(), 'taskwire-cli-home-'));
  const root = join(import.meta.dirname, '..');
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@taskwire/source', 'src/cli.ts', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: home, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    return { code, out, err };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
