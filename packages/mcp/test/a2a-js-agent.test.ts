// The bridge in front of an agent on the official @a2a-js/sdk server (the
// inspector's test peer: echo and slow, no skills on its card), over stdio.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PeerAgent } from '../../inspector/test/peer-agent.js';
import { startPeerAgent } from '../../inspector/test/peer-agent.js';
import type { Connected } from './kit.js';
import { call, overStdio, textOf } from './kit.js';

let peer: PeerAgent;
let mcp: Connected;
beforeAll(async () => {
  peer = await startPeerAgent();
  mcp = await overStdio([peer.url]);
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  await peer?.close();
});

describe('an @a2a-js/sdk agent behind taskwire-mcp', { timeout: 60_000 }, () => {
  it('a card without skills gives send_message, described from the card', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['cancel_task', 'get_task', 'list_tasks', 'send_message']);
    expect(tools.find((t) => t.name === 'send_message')!.description).toContain('"a2a-js peer"');
  });

  it('echo, and slow with progress notifications and its artifact', async () => {
    const echo = await call(mcp.client, 'send_message', { message: 'echo from mcp' });
    expect(echo.isError).toBeFalsy();
    expect(textOf(echo)).toContain('from mcp');
    const progress: string[] = [];
    const slow = await call(mcp.client, 'send_message', { message: 'slow 3 100' }, { onprogress: (p) => progress.push(p.message ?? '') });
    expect(slow._meta).toMatchObject({ state: 'completed' });
    expect(textOf(slow)).toContain('chunk 3 of 3');
    // While it runs: its working steps as they come, not one notification at the end.
    expect(new Set(progress.filter((m) => /^working [1-3]\/3$/.test(m))).size, progress.join(' | ')).toBeGreaterThanOrEqual(2);
  });
});
