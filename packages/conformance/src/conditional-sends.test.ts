// A2A 1.1's ifGenerationMatch under a race, over every transport: two messages matching one generation at once.
import { httpJsonTransport, jsonRpcTransport } from '@taskwire/client';
import { wsTransport } from '@taskwire/client/ws';
import type { Agent, CallOptions, Task, Transport } from '@taskwire/core';
import { A2AError, TaskService } from '@taskwire/core';
import { racingReads } from '@taskwire/core/testing';
import { serveGrpc } from '@taskwire/server-grpc';
import { grpcTransport } from '@taskwire/server-grpc/client';
import { serveA2A } from '@taskwire/server-http';
import { serveWebSocket } from '@taskwire/server-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUITE_CARD, userMessage } from './harness.js';

/** Asks for input on a task's first message; answers a later one and completes. */
const agent: Agent = async (ctx) => {
  if (ctx.isContinuation) await ctx.complete(`got ${ctx.text}`);
  else await ctx.inputRequired('which one?');
};

// The store's next reads can be made to meet: both messages pass the intake's check, then race to commit.
const racing = racingReads();
const service = new TaskService({ store: racing.store, agent, card: SUITE_CARD, protocol: { v1_1: true } });
const V11: CallOptions = { headers: { 'a2a-version': '1.1' } };
const clients: Record<string, { transport: Transport; call?: CallOptions }> = {};
const close: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  const [http, grpc, ws] = await Promise.all([serveA2A({ service }), serveGrpc({ service }), serveWebSocket({ service })]);
  const grpcClient = grpcTransport({ url: grpc.url });
  const wsClient = wsTransport({ url: ws.url, headers: { 'a2a-version': '1.1' } });
  clients['JSON-RPC'] = { transport: jsonRpcTransport({ url: `${http.url}/a2a/jsonrpc` }), call: V11 };
  clients['HTTP+JSON'] = { transport: httpJsonTransport({ url: `${http.url}/a2a/rest` }), call: V11 };
  clients.gRPC = { transport: grpcClient, call: V11 };
  clients.WebSocket = { transport: wsClient };
  close.push(() => http.close(), async () => grpcClient.close?.(), () => grpc.close(), () => wsClient.close(), () => ws.close(), () => service.close());
});
afterAll(async () => {
  for (const stop of close) await stop();
});

const taskOf = (result: object): Task => ('task' in result && result.task ? (result.task as Task) : expect.fail('expected a task'));

describe.each(['JSON-RPC', 'HTTP+JSON', 'gRPC', 'WebSocket'])('ifGenerationMatch over %s', (binding) => {
  it('two messages matching one generation at once: one is taken, the other is refused with TaskGenerationMismatch', async () => {
    const { transport, call } = clients[binding]!;
    const asked = taskOf(await transport.unary('SendMessage', { message: userMessage('start') }, call));
    await service.idle();
    const sent = [userMessage('red', { taskId: asked.id }), userMessage('blue', { taskId: asked.id })];
    racing.arm(2);
    const outcomes = await Promise.allSettled(sent.map((message) => transport.unary('SendMessage', { message, configuration: { ifGenerationMatch: asked.generation } }, call)));
    await service.idle();
    const won = outcomes.findIndex((o) => o.status === 'fulfilled');
    const lost = outcomes.findIndex((o) => o.status === 'rejected');
    expect([won, lost].sort()).toEqual([0, 1]);
    const refusal = (outcomes[lost] as PromiseRejectedResult).reason as unknown;
    expect(A2AError.is(refusal) && refusal.kind).toBe('TaskGenerationMismatch');
    expect(refusal).toMatchObject({ code: -32010, metadata: { taskId: asked.id } });
    const after = await transport.unary('GetTask', { id: asked.id }, call);
    expect(after.history?.filter((m) => m.role === 'ROLE_USER').map((m) => m.messageId)).toEqual([asked.history![0]!.messageId, sent[won]!.messageId]);
    expect(after.status.message?.parts).toEqual([{ text: `got ${won === 0 ? 'red' : 'blue'}` }]);
    expect(after.generation).toBeGreaterThan(asked.generation!);
  });
});
