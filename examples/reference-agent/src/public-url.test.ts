import { afterEach, describe, expect, it } from 'vitest';
import { parseOptions, type AgentOptions } from './options.js';
import type { RunningAgent } from './serve-all.js';
import { serveAll } from './serve-all.js';

const parse = (...args: string[]) => parseOptions(['--store', 'memory', '--port', '0', '--grpc-port', '0', ...args]) as AgentOptions;

let agent: RunningAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** The card's interfaces, `binding url` each, read over HTTP from the agent itself. */
async function interfaces(running: RunningAgent, headers: Record<string, string> = {}): Promise<string[]> {
  const card = await (await fetch(running.urls.card, { headers })).json();
  return card.supportedInterfaces.map((i: { protocolBinding: string; url: string }) => `${i.protocolBinding} ${i.url}`);
}

describe('reference agent behind a load balancer', () => {
  it('parses --public-url, --public-grpc-url and --trust-proxy, and refuses bad ones', () => {
    expect(parse()).toMatchObject({ publicUrl: undefined, publicGrpcUrl: undefined, trustProxy: false });
    expect(parse('--public-url', 'https://agents.example.com/', '--public-grpc-url', 'grpc.example.com:443', '--trust-proxy')).toMatchObject({
      publicUrl: 'https://agents.example.com',
      publicGrpcUrl: 'grpc.example.com:443',
      trustProxy: true,
    });
    expect(() => parse('--public-url', 'agents.example.com')).toThrow(/--public-url must be an absolute http\(s\) URL/);
    expect(() => parse('--public-grpc-url', 'grpc://grpc.example.com')).toThrow(/--public-grpc-url must be host:port/);
    expect(() => parse('--public-grpc-url', 'grpc.example.com:70000')).toThrow(/--public-grpc-url must be host:port/);
  });

  it('with --public-url and --public-grpc-url, lists every interface at the balancer, while serving at its own address', async () => {
    agent = await serveAll(parse('--public-url', 'http://lb.example:8080', '--public-grpc-url', 'lb.example:8081'));
    expect(agent.publicUrl).toBe('http://lb.example:8080');
    expect(agent.urls.jsonRpc).toBe(`${agent.baseUrl}/a2a/jsonrpc`);
    expect(await interfaces(agent)).toEqual([
      'JSONRPC http://lb.example:8080/a2a/jsonrpc',
      'HTTP+JSON http://lb.example:8080/a2a/rest',
      'GRPC lb.example:8081',
      expect.stringMatching(/^\S+ ws:\/\/lb\.example:8080\/a2a\/ws$/),
    ]);
  });

  it('with --trust-proxy and no public gRPC address, follows the proxy and lists no gRPC interface (its own would bypass the balancer)', async () => {
    agent = await serveAll(parse('--trust-proxy'));
    const proxied = await interfaces(agent, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'agents.example.com' });
    expect(proxied).toEqual([
      'JSONRPC https://agents.example.com/a2a/jsonrpc',
      'HTTP+JSON https://agents.example.com/a2a/rest',
      expect.stringMatching(/^\S+ wss:\/\/agents\.example\.com\/a2a\/ws$/),
    ]);
    // Reached directly (no forwarded headers): its own address, the one it prints.
    expect((await interfaces(agent))[0]).toBe(`JSONRPC ${agent.urls.jsonRpc}`);
    expect(agent.urls.ws).toBe(`${agent.baseUrl.replace(/^http/, 'ws')}/a2a/ws`);
  });

  it('without them, lists its own addresses, gRPC included', async () => {
    agent = await serveAll(parse());
    expect(await interfaces(agent)).toEqual([
      `JSONRPC ${agent.urls.jsonRpc}`,
      `HTTP+JSON ${agent.urls.rest}`,
      `GRPC ${agent.urls.grpc}`,
      expect.stringMatching(new RegExp(` ${agent.urls.ws}$`)),
    ]);
  });
});
