import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NGINX = '/usr/sbin/nginx';
const INSTALL = fileURLToPath(new URL('../../../../scripts/install-nginx.sh', import.meta.url));

/** Where the balancer sends requests: the replicas' HTTP ports and gRPC ports. */
export interface Upstreams {
  readonly http: readonly number[];
  readonly grpc: readonly number[];
}

/** The two ports nginx listens on: HTTP (JSON-RPC, HTTP+JSON, SSE, WebSocket, the card) and gRPC. */
export interface Listen {
  readonly http: number;
  readonly grpc: number;
}

/**
 * Two free ports of 127.0.0.1 for nginx, held (listened on) until
 * `release()`, so that replicas started meanwhile on free ports cannot take
 * them: the replicas can then be told nginx's address (`--public-url`)
 * before nginx starts.
 */
export interface ReservedPorts extends Listen {
  /** The balancer's base URL: `http://127.0.0.1:HTTP`. */
  readonly url: string;
  /** The balancer's gRPC address: `127.0.0.1:GRPC`. */
  readonly grpcUrl: string;
  release(): Promise<void>;
}

/** A running nginx in front of the replicas. */
export interface Balancer {
  /** `http://127.0.0.1:PORT`: JSON-RPC, HTTP+JSON, SSE, WebSocket and the card, spread over the replicas. */
  readonly url: string;
  /** `127.0.0.1:PORT`: gRPC (HTTP/2 without TLS), spread over the replicas. */
  readonly grpcUrl: string;
  /** Everything nginx logged (its error log). */
  log(): string;
  close(): Promise<void>;
}

/** The root README, whose "Running several replicas" section holds the nginx configuration the tests run. */
const README = fileURLToPath(new URL('../../../../README.md', import.meta.url));

/** The ```nginx block of the README's "Running several replicas" section, as it stands (indentation removed). */
export function readmeNginxBlock(): string {
  const readme = readFileSync(README, 'utf8');
  const section = readme.slice(readme.indexOf('## Running several replicas'));
  const block = /```nginx\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('the README has no nginx block in "Running several replicas"');
  const indent = /^ */.exec(block)![0].length;
  return block
    .split('\n')
    .map((line) => line.slice(indent))
    .join('\n');
}

/** `text` with `from` replaced by `to`; throws when `from` is not in it (the README's block changed shape). */
function swap(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`the README's nginx block no longer has ${String(from)}`);
  return out;
}

/**
 * A whole nginx configuration around the README's block: the block as the
 * README shows it, with its upstream servers replaced by the replicas'
 * ports and its `listen` ports by `listen`, inside a foreground, single
 * process `http` context whose files stay in `dir`. For the tests only, each
 * HTTP answer also says which replica served it (`X-Served-By: 127.0.0.1:PORT`,
 * the last upstream nginx tried).
 */
export function nginxConfig(listen: Listen, upstreams: Upstreams, dir: string): string {
  const servers = (ports: readonly number[]) => ports.map((p) => `  server 127.0.0.1:${p};`).join('\n');
  let block = readmeNginxBlock();
  block = swap(block, /upstream taskwire_http \{[^}]*\}/, `upstream taskwire_http {\n${servers(upstreams.http)}\n}`);
  block = swap(block, /upstream taskwire_grpc \{[^}]*\}/, `upstream taskwire_grpc {\n${servers(upstreams.grpc)}\n}`);
  block = swap(block, 'listen 8080;', `listen 127.0.0.1:${listen.http};`);
  block = swap(block, 'listen 8081 http2;', `listen 127.0.0.1:${listen.grpc} http2;`);
  block = swap(block, 'proxy_pass http://taskwire_http;', 'proxy_pass http://taskwire_http;\n    add_header X-Served-By $upstream_addr always;');
  return nginxMainConfig(block, dir);
}

/**
 * A whole nginx configuration around an `http`-context `block`: a
 * foreground, single-process nginx whose files (pid, logs, temporary
 * files) stay in `dir`.
 */
export function nginxMainConfig(block: string, dir: string): string {
  return `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${block}
}
`;
}

/** A free port of 127.0.0.1, listened on until `release()`. */
function holdPort(): Promise<{ port: number; release(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ port, release: () => new Promise<void>((done) => server.close(() => done())) });
    });
  });
}

/** Reserves nginx's two ports (see {@link ReservedPorts}). */
export async function reservePorts(): Promise<ReservedPorts> {
  const [http, grpc] = await Promise.all([holdPort(), holdPort()]);
  return {
    http: http.port,
    grpc: grpc.port,
    url: `http://127.0.0.1:${http.port}`,
    grpcUrl: `127.0.0.1:${grpc.port}`,
    release: async () => void (await Promise.all([http.release(), grpc.release()])),
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Installs Debian's nginx when it is missing (as the PostgreSQL setup does); throws saying how when it cannot. */
export function ensureNginx(): void {
  if (existsSync(NGINX)) return;
  const result = spawnSync('bash', [INSTALL], { encoding: 'utf8' });
  if (result.status !== 0 || !existsSync(NGINX)) throw new Error(`nginx is needed and could not be installed:\n${result.stderr}`);
}

/**
 * Starts nginx (installed first when missing) in the foreground as a child
 * process, with {@link nginxConfig} on `ports` (reserved before, and
 * released here just before nginx takes them) or two free ports, and
 * resolves once it accepts connections on both.
 */
export function startNginx(upstreams: Upstreams, ports?: ReservedPorts): Promise<Balancer> {
  return runNginx((listen, dir) => nginxConfig(listen, upstreams, dir), ports);
}

/**
 * Starts nginx (installed first when missing) in the foreground as a child
 * process with the whole configuration `config` gives for its listen ports
 * and its directory, on `ports` (reserved before, and released here just
 * before nginx takes them) or two free ports; resolves once it accepts
 * connections on both.
 */
export async function runNginx(config: (listen: Listen, dir: string) => string, ports?: ReservedPorts): Promise<Balancer> {
  ensureNginx();
  const dir = await mkdtemp(join(tmpdir(), 'taskwire-nginx-'));
  const reserved = ports ?? (await reservePorts());
  const listen = { http: reserved.http, grpc: reserved.grpc };
  await reserved.release();
  const conf = join(dir, 'nginx.conf');
  await writeFile(conf, config(listen, dir));
  const child = spawn(NGINX, ['-p', dir, '-e', join(dir, 'error.log'), '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => {
    try {
      return `${output}${readFileSync(join(dir, 'error.log'), 'utf8')}`;
    } catch {
      return output;
    }
  };
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited at start:\n${log()}`);
    if ((await accepts(listen.http)) && (await accepts(listen.grpc))) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    url: `http://127.0.0.1:${listen.http}`,
    grpcUrl: `127.0.0.1:${listen.grpc}`,
    log,
    async close() {
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
