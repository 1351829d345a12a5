// One replica of a booking agent for the cluster test: a TaskService on the
// PostgreSQL task store (where the paused run's RunState is kept). Prints
// `ready <url>` once it serves.
// Usage: replica.ts <database url> <schema>
import { Agent, tool } from '@openai/agents';
import { TaskService } from '@taskwire/core';
import { createPostgresTaskStore, migrate } from '@taskwire/postgres';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';
import * as z from 'zod';
import { testCard } from '@taskwire/reference-agent/adapter-test-kit';
import { FakeModel } from '../src/fake-model.js';
import { openaiAgent } from '../src/index.js';

const [url, schema] = process.argv.slice(2) as [string, string];
const book = tool({
  name: 'book',
  description: 'Books a seat',
  parameters: z.object({ seat: z.string() }),
  needsApproval: true,
  execute: async ({ seat }) => `booked ${seat} at replica ${process.pid}`,
});
const model = new FakeModel((request) => {
  const result = (request.input as { type?: string; output?: unknown }[]).find((i) => i.type === 'function_call_result');
  return result ? { text: [`Done: ${JSON.stringify(result.output)}`] } : { calls: [{ name: 'book', arguments: { seat: '2C' }, callId: 'call-1' }] };
});
await migrate({ connectionString: url, schema });
const store = await createPostgresTaskStore({ connectionString: url, schema });
const card = testCard('booking');
const service = new TaskService({ store, agent: openaiAgent(new Agent({ name: 'Booker', model, tools: [book] })), card });
const server = await serveA2A({ service, card: (base) => ({ ...card, supportedInterfaces: httpInterfaces(base) }) });
process.stdout.write(`ready ${server.url}\n`);
