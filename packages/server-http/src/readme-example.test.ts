import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// #region readme:imports
import { createMemoryTaskStore, TaskService, type Agent } from '@taskwire/core';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';
// #endregion readme:imports

/** The region of this file between `// #region name` and `// #endregion name`, dedented. */
function region(name: string): string {
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  const body = source.split(`// #region ${name}\n`)[1]!.split(`// #endregion ${name}`)[0]!;
  const lines = body.split('\n').slice(0, -1);
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  return lines.map((l) => l.slice(indent)).join('\n');
}

describe('README quick start', () => {
  it('runs: serves an agent and answers a JSON-RPC SendMessage', async () => {
    // #region readme:body
    const echo: Agent = async (ctx) => ctx.complete(`You said: ${ctx.text}`);
    const service = new TaskService({ store: createMemoryTaskStore(), agent: echo });
    const server = await serveA2A({
      service,
      port: 0, // a free port: read it from server.url
      card: (url) => ({
        name: 'Echo',
        description: 'Says back what it is told',
        version: '1.0.0',
        supportedInterfaces: httpInterfaces(url), // JSON-RPC and HTTP+JSON at this server
        capabilities: { streaming: true },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [],
      }),
    });

    // Any A2A client works; here plain fetch speaks JSON-RPC.
    const response = await fetch(`${server.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
      }),
    });
    const { result } = await response.json();
    // result.task.status.state is 'TASK_STATE_COMPLETED'; its message says "You said: hello".

    await server.close();
    // #endregion readme:body
    expect(result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.task.status.message.parts[0].text).toBe('You said: hello');
  });

  it('is the first example of the README, word for word', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const first = /```ts\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(first).toBe(`${region('readme:imports')}\n\n${region('readme:body')}\n`);
  });
});
