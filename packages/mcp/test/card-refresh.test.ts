// The tools follow the card: a bridge process re-reads it (--card-refresh)
// and tells the client when its skills change.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, overStdio, startAgent } from './kit.js';

let agent: RunningAgent;
beforeAll(async () => {
  agent = await startAgent();
});
afterAll(async () => {
  await agent?.close();
});

it('--card-refresh: a skill added to the card becomes a tool, and the client is told', { timeout: 60_000 }, async () => {
  const card = (await (await fetch(agent.urls.card)).json()) as { skills: { id: string; name: string; description: string; tags: string[] }[] };
  let skills = card.skills.filter((s) => s.id === 'echo');
  const cards = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...card, skills })));
  await new Promise<void>((resolve) => cards.listen(0, '127.0.0.1', resolve));
  const cardUrl = `http://127.0.0.1:${(cards.address() as AddressInfo).port}/agent-card.json`;
  const mcp = await overStdio([cardUrl, '--card-refresh', '50']);
  try {
    expect((await mcp.client.listTools()).tools.map((t) => t.name).sort()).toEqual(['cancel_task', 'echo', 'get_task', 'list_tasks']);
    const changed = new Promise<void>((resolve) => mcp.client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    skills = [...skills, { id: 'echo again', name: 'Echo again', description: 'The same, under another name.', tags: [] }];
    await changed;
    expect((await mcp.client.listTools()).tools.map((t) => t.name).sort()).toEqual(['cancel_task', 'echo', 'echo_again', 'get_task', 'list_tasks']);
    expect((await call(mcp.client, 'echo_again', { message: 'echo still here' })).content[0]).toEqual({ type: 'text', text: 'still here' });
  } finally {
    await mcp.close();
    await new Promise<void>((resolve) => (cards.close(() => resolve()), cards.closeAllConnections()));
  }
});
