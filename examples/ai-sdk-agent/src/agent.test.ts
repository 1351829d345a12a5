import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { a2aAgent } from '@taskwire/ai-sdk';
import type { A2AClient } from '@taskwire/client';
import { createClient, DEFAULT_TRANSPORTS } from '@taskwire/client';
import { grpcTransport } from '@taskwire/client/grpc';
import type { SendMessageResponse, Task } from '@taskwire/core';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { serveAll } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseModel, HELP, travelAgent, travelCard } from './agent.js';

const message = (text: string, taskId?: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }], ...(taskId && { taskId }) });
const taskOf = (result: SendMessageResponse): Task => {
  if (!('task' in result)) throw new Error(`expected a task: ${JSON.stringify(result)}`);
  return result.task;
};
const said = (task: Task) => (task.status.message?.parts[0] as { text: string } | undefined)?.text;

describe('the AI SDK travel agent on the reference setup (mock model)', () => {
  let running: RunningAgent;
  const clients: A2AClient[] = [];
  beforeAll(async () => {
    const { model, name } = chooseModel({});
    expect(name).toContain('mock model');
    const options = { host: '127.0.0.1', port: 0, grpcPort: 0, store: { kind: 'memory' as const }, apiKey: undefined, drainGraceMs: 0 };
    running = await serveAll(options, undefined, { agent: a2aAgent(travelAgent(model)), card: travelCard });
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await running.close();
  });

  for (const binding of ['JSONRPC', 'GRPC']) {
    it(`over ${binding}: a tool call, an approval round trip, a denial and a cancel`, async () => {
      const client = await createClient(running.baseUrl, { preferred: [binding], transports: { ...DEFAULT_TRANSPORTS, GRPC: (t) => grpcTransport({ url: t.url }) } });
      clients.push(client);
      expect(client.interface?.protocolBinding).toBe(binding);

      expect(said(taskOf(await client.sendMessage({ message: message('weather in Oslo') })))).toBe('It is sunny and 21 °C in Oslo.');
      expect(said(taskOf(await client.sendMessage({ message: message('hello') })))).toBe(HELP);

      const asked = taskOf(await client.sendMessage({ message: message('book Oslo') }));
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const booked = taskOf(await client.sendMessage({ message: message('approve', asked.id) }));
      expect([booked.status.state, said(booked)]).toEqual(['TASK_STATE_COMPLETED', 'Booked: a trip to Oslo, reference TW-OSL-1.']);

      const again = taskOf(await client.sendMessage({ message: message('book Rome') }));
      const denied = taskOf(await client.sendMessage({ message: message('deny', again.id) }));
      expect([denied.status.state, said(denied)]).toEqual(['TASK_STATE_COMPLETED', 'Fine, I booked nothing.']);

      let last: string | undefined;
      for await (const event of client.stream('SendStreamingMessage', { message: message('slow please') })) {
        const r = event.response;
        if ('artifactUpdate' in r && last === undefined) await client.cancelTask({ id: r.artifactUpdate.taskId });
        last = 'statusUpdate' in r ? r.statusUpdate.status.state : 'artifactUpdate' in r ? 'artifact' : last;
      }
      expect(last).toBe('TASK_STATE_CANCELED');
    });
  }
});

describe('pnpm start (src/main.ts)', () => {
  it('serves every transport of the reference setup, with the page, and stops on SIGINT', async () => {
    const root = join(import.meta.dirname, '..');
    const env = { ...process.env, OPENAI_API_KEY: '' };
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', '--conditions=@taskwire/source', 'src/main.ts', '--port', '0', '--grpc-port', '0', '--store', 'memory'], { cwd: root, env });
    try {
      let output = '';
      await new Promise<void>((resolve, reject) => {
        child.stderr!.on('data', (chunk) => (output += chunk));
        child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready:\n${output}`)));
        child.stdout!.on('data', (chunk) => {
          output += chunk;
          if (output.includes('Press Ctrl+C to stop.')) resolve();
        });
      });
      expect(output).toContain('a mock model');
      const url = (name: string) => new RegExp(`${name}\\s+(\\S+)`).exec(output)![1]!;
      const card = await (await fetch(url('card'))).json();
      expect(card.name).toBe(travelCard.name);
      expect(card.supportedInterfaces.map((i: { protocolBinding: string }) => i.protocolBinding)).toContain('GRPC');
      expect((await fetch(url('web page'))).status).toBe(200);
      child.removeAllListeners('exit');
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
