// The bridge's Streamable HTTP endpoint as a server of its own: a real
// `taskwire-mcp --http` process, raw HTTP requests with rebound Host and
// Origin headers on every kind of --host, its bearer token, and the bound
// on bodies.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, startAgent } from './kit.js';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

let agent: RunningAgent;
beforeAll(async () => {
  agent = await startAgent();
});
afterAll(async () => {
  await agent?.close();
});

/** A running bridge process: its port, what it printed, and how to stop it. */
interface Bridge {
  readonly port: number;
  readonly stderr: () => string;
  stop(): Promise<number | null>;
}

/** Starts `taskwire-mcp <agent> --http 0 <args>` and waits for the address it prints. */
async function bridge(args: readonly string[], env: Record<string, string> = {}): Promise<Bridge> {
  const child: ChildProcess = spawn(process.execPath, ['--import', TSX, '--conditions=@taskwire/source', CLI, agent.baseUrl, '--http', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let err = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
      const found = /Streamable HTTP at http:\/\/\S+:(\d+)\/mcp\n/.exec(err); // the start lines come in one write
      if (found) resolve(Number(found[1]));
    });
    child.once('exit', () => reject(new Error(`the bridge exited: ${err}`)));
  });
  return { port, stderr: () => err, stop: () => (child.kill('SIGTERM'), exited) };
}

/** A raw POST of `initialize` to 127.0.0.1:`port` with the headers given (Host included, which fetch cannot set). */
function post(port: number, headers: Record<string, string>, body = INIT): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? resolve({ status: 0, text: error.code }) : reject(error)));
    req.end(body);
  });
}

/** A raw POST whose body goes in `chunks` pieces (chunked, no Content-Length) to 127.0.0.1:`port`. */
function postChunked(port: number, headers: Record<string, string>, piece: string, chunks: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    for (let i = 0; i < chunks; i++) req.write(piece);
    req.end();
  });
}

/** The token a bridge printed once, at start. */
function printedToken(stderr: string): string {
  const found = /Authorization: Bearer (\S+) \(shown once/.exec(stderr);
  if (!found) throw new Error(`no token printed: ${stderr}`);
  return found[1]!;
}

describe('taskwire-mcp --http checks Host and Origin whatever --host is', () => {
  it.each([
    ['a wildcard address', ['--host', '0.0.0.0']],
    ['an IPv4-mapped IPv6 loopback address', ['--host', '::ffff:127.0.0.1']],
    ['a LAN name the user allows', ['--host', '0.0.0.0', '--allowed-host', 'bridge.lan']],
  ])('%s: rebound and foreign names get 403, its own names are answered', { timeout: 90_000 }, async (_, args) => {
    const running = await bridge(args);
    try {
      const lan = args.includes('--allowed-host');
      const token = args.includes('0.0.0.0') ? printedToken(running.stderr()) : undefined;
      const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      const port = running.port;
      // DNS rebinding: a name that now resolves to this machine, with or without a page's Origin.
      expect((await post(port, { host: `rebound.attacker.example:${port}`, ...auth })).status).toBe(403);
      expect((await post(port, { host: `localhost:${port}`, origin: 'https://attacker.example', ...auth })).status).toBe(403);
      expect((await post(port, { host: `localhost:${port}`, origin: 'null', ...auth })).status).toBe(403);
      expect((await post(port, { host: `127.0.0.1.attacker.example:${port}`, ...auth })).status).toBe(403);
      expect((await post(port, { host: `localhost:${port}`, origin: `http://localhost:${port}`, ...auth })).status).toBe(200);
      expect((await post(port, { host: `[::1]:${port}`, ...auth })).status).toBe(200);
      expect((await post(port, { host: `bridge.lan:${port}`, origin: `http://bridge.lan:${port}`, ...auth })).status).toBe(lan ? 200 : 403);
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });
});

describe("taskwire-mcp --http's own token", () => {
  it.each([
    ['off loopback', ['--host', '0.0.0.0']],
    ['on loopback with a name from beyond this machine (a proxy)', ['--allowed-host', 'mcp.proxy.example']],
  ])('%s: a random token, printed once, is required on every request', { timeout: 60_000 }, async (_, args) => {
    const running = await bridge(args);
    try {
      const token = printedToken(running.stderr());
      expect(token.length).toBeGreaterThanOrEqual(40);
      expect(running.stderr().split(token)).toHaveLength(2);
      const host = { host: `localhost:${running.port}` };
      expect((await post(running.port, host)).status).toBe(401);
      expect((await post(running.port, { ...host, authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await post(running.port, { ...host, authorization: `Bearer ${token}` })).status).toBe(200);
    } finally {
      await running.stop();
    }
  });

  it('on loopback: TASKWIRE_MCP_TOKEN makes it required, and it is never printed', { timeout: 60_000 }, async () => {
    const running = await bridge([], { TASKWIRE_MCP_TOKEN: 'loopback-secret-token' });
    try {
      expect(running.stderr()).not.toContain('loopback-secret-token');
      const host = { host: `127.0.0.1:${running.port}` };
      expect((await post(running.port, host)).status).toBe(401);
      expect((await post(running.port, { ...host, authorization: 'Bearer loopback-secret-token' })).status).toBe(200);
    } finally {
      await running.stop();
    }
  });
});

describe("taskwire-mcp --http's body bound", () => {
  it('a body over --max-body gets 413 before it is parsed; one under it is answered', { timeout: 60_000 }, async () => {
    const running = await bridge(['--max-body', '2048']);
    try {
      const host = { host: `localhost:${running.port}` };
      const big = JSON.stringify({ ...JSON.parse(INIT), padding: 'x'.repeat(4096) });
      expect((await post(running.port, host, big)).status).toBe(413);
      // Not even JSON: refused for its size, not its syntax.
      expect((await post(running.port, host, `{${'y'.repeat(4096)}`)).status).toBe(413);
      // Chunked, without Content-Length: counted as it arrives.
      expect(await postChunked(running.port, host, 'z'.repeat(1024), 4)).toBe(413);
      expect((await post(running.port, host)).status).toBe(200);
    } finally {
      await running.stop();
    }
  });
});
