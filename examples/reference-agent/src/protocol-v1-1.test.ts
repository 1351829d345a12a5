// With --protocol-v1-1 the card announces A2A 1.1 (and 1.0 after it), so @taskwire/client speaks 1.1 without being told.
import { createClient } from '@taskwire/client';
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

const message = () => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'echo hi' }] });

describe('the reference agent and A2A 1.1', () => {
  it('with --protocol-v1-1, lists every interface as 1.1 then as 1.0, and the client speaks 1.1 (generations) unless pinned to 1.0', async () => {
    agent = await serveAll(parse('--protocol-v1-1'));
    const card = await (await fetch(agent.urls.card)).json();
    const listed = card.supportedInterfaces.map((i: { protocolBinding: string; protocolVersion: string }) => `${i.protocolBinding} ${i.protocolVersion}`);
    expect(listed.slice(0, 2)).toEqual(['JSONRPC 1.1', 'HTTP+JSON 1.1']);
    expect(listed.filter((v: string) => v.endsWith(' 1.1'))).toHaveLength(listed.length / 2);
    expect(listed.slice(listed.length / 2, listed.length / 2 + 2)).toEqual(['JSONRPC 1.0', 'HTTP+JSON 1.0']);

    const client = await createClient(agent.baseUrl);
    const pinned = await createClient(agent.baseUrl, { protocolVersion: '1.0' });
    try {
      expect(client.version).toBe('1.1');
      const sent = await client.sendMessage({ message: message() });
      expect('task' in sent && typeof sent.task.generation).toBe('number');
      expect(pinned.version).toBe('1.0');
      const plain = await pinned.sendMessage({ message: message() });
      expect('task' in plain && plain.task.generation).toBeUndefined();
    } finally {
      await client.close();
      await pinned.close();
    }
  });

  it('without it, lists 1.0 interfaces only, and the client speaks 1.0', async () => {
    agent = await serveAll(parse());
    const card = await (await fetch(agent.urls.card)).json();
    expect(card.supportedInterfaces.every((i: { protocolVersion: string }) => i.protocolVersion === '1.0')).toBe(true);
    const client = await createClient(agent.baseUrl);
    try {
      expect(client.version).toBe('1.0');
    } finally {
      await client.close();
    }
  });
});
