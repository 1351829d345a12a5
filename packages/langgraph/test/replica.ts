// One replica of a booking graph for the cluster test: a TaskService on the
// PostgreSQL task store, and the graph's checkpoints in the same database
// (PostgresSaver). Prints `ready <url>` once it serves.
// Usage: replica.ts <database url> <schema>
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { AIMessage } from '@langchain/core/messages';
import { interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { TaskService } from '@taskwire/core';
import { createPostgresTaskStore, migrate } from '@taskwire/postgres';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';
import { langGraphAgent } from '../src/index.js';
import { testCard } from '@taskwire/reference-agent/adapter-test-kit';

const [url, schema] = process.argv.slice(2) as [string, string];
const checkpointer = PostgresSaver.fromConnString(url, { schema: `${schema}_graph` });
await checkpointer.setup();
const graph = new StateGraph(MessagesAnnotation)
  .addNode('book', async () => {
    const city = interrupt('Which city?');
    return { messages: [new AIMessage(`Booked ${String(city)} (replica ${process.pid}).`)] };
  })
  .addEdge(START, 'book')
  .compile({ checkpointer });
await migrate({ connectionString: url, schema });
const store = await createPostgresTaskStore({ connectionString: url, schema });
const card = testCard('booking');
const service = new TaskService({ store, agent: langGraphAgent(graph), card });
const server = await serveA2A({ service, card: (base) => ({ ...card, supportedInterfaces: httpInterfaces(base) }) });
process.stdout.write(`ready ${server.url}\n`);
