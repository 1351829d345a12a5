// The real `taskwire-inspect --check` process against hostile agents on 127.0.0.1
// (seeded cases: broken cards, answers of the wrong shape, no JSON, HTML error
// pages, hanging answers, a redirect loop, a self-signed TLS server): it exits
// non-zero, names the problem, and never prints a stack trace or a TypeError.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileCases, serveHostileCases, validCard } from './hostile-agents.js';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const ROOT = join(import.meta.dirname, '..');
/** The same cases on every run. */
const CASES = hostileCases(33);
/** What a crash looks like: a stack frame, a TypeError, a read of a field of nothing. */
const CRASH = /TypeError|Cannot read properties|^\s+at .+:\d+:\d+\)?$|undefined \(reading/m;

/** Runs the real command (src/cli.ts through tsx) with `args`. */
async function inspect(args: readonly string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', TSX, '--conditions=@taskwire/source', 'src/cli.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  return { code, out };
}

let agents: Awaited<ReturnType<typeof serveHostileCases>>;
beforeAll(async () => {
  agents = await serveHostileCases(CASES);
});
afterAll(() => agents?.close());

describe('taskwire-inspect --check against hostile agents (seed 33)', () => {
  it('generates the same cases on every run', () => {
    expect(hostileCases(33).map((c) => c.name)).toEqual(CASES.map((c) => c.name));
    expect(CASES.length).toBe(32);
  });

  it.each(CASES.map((c, i) => [i, c.name] as const))('case %i, %s: exits non-zero and names the problem, no crash', async (i) => {
    const c = CASES[i]!;
    const args = ['--check', `${agents.url}/case-${i}/card.json`, '--quick', 'echo fuzz', '--slow', 'slow 3 10', ...(c.timeoutMs ? ['--timeout', String(c.timeoutMs)] : [])];
    const { code, out } = await inspect(args);
    expect(out).not.toMatch(CRASH);
    expect(out).toMatch(c.expected);
    expect(code === 1 || code === 3).toBe(true);
  }, 60_000);

  it('names the TLS error of an agent with a self-signed certificate', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inspector-tls-'));
    try {
      const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
      await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', key, '-out', cert]);
      const server = createServer({ key: await readFile(key), cert: await readFile(cert) }, (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(validCard('https://127.0.0.1'))));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { code, out } = await inspect(['--check', `https://127.0.0.1:${(server.address() as AddressInfo).port}`]);
        expect(out).not.toMatch(CRASH);
        expect(out).toMatch(/does not load \(fetch failed: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)/);
        expect(code).toBe(3);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
