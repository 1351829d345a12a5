// The MCP conformance suite (@modelcontextprotocol/conformance, its active
// server scenarios) against the bridge over Streamable HTTP. Its CLI needs
// Node 22: it runs on the workspace's Node 22 (scripts/node22.mjs).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentLink } from '../src/agent-link.js';
import { createMcpServer } from '../src/create-server.js';
import type { HttpBridge } from '../src/http-server.js';
import { serveHttp } from '../src/http-server.js';
import { startAgent } from './kit.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const BASELINE = fileURLToPath(new URL('./conformance-not-applicable.yml', import.meta.url));
const CLI = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');

/** The scenarios that apply to the bridge: each must pass. */
const APPLICABLE = ['server-initialize', 'logging-set-level', 'ping', 'tools-list', 'tools-call-simple-text', 'tools-call-error', 'server-sse-multiple-streams', 'resources-list', 'dns-rebinding-protection'];

/** Runs the conformance CLI on Node 22; resolves its exit code and output. */
function conformance(args: readonly string[], cwd: string): Promise<{ code: number | null; output: string }> {
  const node = execFileSync(process.execPath, [join(root, 'scripts/node22.mjs')], { encoding: 'utf8' }).trim();
  const child = spawn(node, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('the MCP conformance suite against the bridge', { timeout: 300_000 }, () => {
  let agent: RunningAgent;
  let link: AgentLink;
  let bridge: HttpBridge;
  let cwd: string;
  beforeAll(async () => {
    agent = await startAgent();
    link = new AgentLink(agent.baseUrl);
    bridge = await serveHttp({ port: 0, newServer: () => createMcpServer({ agent: link }) });
    cwd = mkdtempSync(join(tmpdir(), 'taskwire-mcp-conformance-'));
  });
  afterAll(async () => {
    await bridge?.close();
    await link?.close();
    await agent?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it('passes every scenario that applies; the others fail only as the baseline says (a stale entry fails too)', async () => {
    const { code, output } = await conformance(['server', '--url', bridge.url, '--expected-failures', BASELINE], cwd);
    const summary = output.slice(output.indexOf('=== SUMMARY ==='));
    for (const scenario of APPLICABLE) expect(summary, output).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
    expect(code, output).toBe(0);
  });
});
