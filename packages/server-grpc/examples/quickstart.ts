import type { Agent } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { grpcInterface, serveGrpc } from '@taskwire/server-grpc';
import { grpcTransport } from '@taskwire/server-grpc/client';

// An agent: plain async code that answers every message.
const agent: Agent = async (ctx) => ctx.complete(`You said: ${ctx.text}`);

export async function quickstart(): Promise<string> {
  const service = new TaskService({ store: createMemoryTaskStore(), agent });
  // Port 0 picks a free port; server.url is "127.0.0.1:<port>".
  const server = await serveGrpc({ service, port: 0 });
  console.log('agent card entry:', grpcInterface(server.url));

  const client = grpcTransport({ url: server.url });
  try {
    const result = await client.unary('SendMessage', {
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] },
    });
    const status = 'task' in result ? result.task.status : undefined;
    const reply = status?.message?.parts[0];
    return reply && 'text' in reply ? reply.text : '';
  } finally {
    await client.close();
    await server.close();
    await service.close();
  }
}

console.log(await quickstart()); // You said: hello
