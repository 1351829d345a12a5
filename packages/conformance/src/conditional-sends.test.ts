// A2A 1.1's ifGenerationMatch under a race: two messages matching one generation at once, over every transport, and
// to two services on one store (the loser's commit conflicts, reads the task again and checks again).
import { httpJsonTransport, jsonRpcTransport } from '@taskwire/client';
import { wsTransport } from '@taskwire/client/ws';
import type { Agent, CallOptions, Task, Transport } from '@taskwire/core';
import { A2AError, inMemoryTransport, TaskService } from '@taskwire/core';
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

/** Services on one store whose next reads can be made to meet: both messages pass the intake's check, then race to commit. */
function servicesOnOneStore(count: number) {
  const racing = racingReads();
  const services = Array.from({ length: count }, () => new TaskService({ store: racing.store, agent, card: SUITE_CARD, protocol: { v1_1: true } }));
  return { racing, services };
}

const served = servicesOnOneStore(1);
const pair = servicesOnOneStore(2);
const service = served.services[0]!;
const V11: CallOptions = { headers: { 'a2a-version': '1.1' } };
/** Per case: the transports the two messages go through (round robin), the call options, and the services behind them. */
const cases: Record<string, { transports: Transport[]; call?: CallOptions; of: typeof served }> = {
  'in-memory': { transports: [inMemoryTransport(service, { version: '1.1' })], of: served },
  'in-memory, two services on one store': { transports: pair.services.map((s) => inMemoryTransport(s, { version: '1.1' })), of: pair },
};
const close: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  const [http, grpc, ws] = await Promise.all([serveA2A({ service }), serveGrpc({ service }), serveWebSocket({ service })]);
  const grpcClient = grpcTransport({ url: grpc.url });
  const wsClient = wsTransport({ url: ws.url, headers: { 'a2a-version': '1.1' } });
  cases['JSON-RPC'] = { transports: [jsonRpcTransport({ url: `${http.url}/a2a/jsonrpc` })], call: V11, of: served };
  cases['HTTP+JSON'] = { transports: [httpJsonTransport({ url: `${http.url}/a2a/rest` })], call: V11, of: served };
  cases.gRPC = { transports: [grpcClient], call: V11, of: served };
  cases.WebSocket = { transports: [wsClient], of: served };
  close.push(() => http.close(), async () => grpcClient.close?.(), () => grpc.close(), () => wsClient.close(), () => ws.close());
});
afterAll(async () => {
  for (const stop of close) await stop();
  for (const s of [...served.services, ...pair.services]) await s.close();
});

const taskOf = (result: object): Task => ('task' in result && result.task ? (result.task as Task) : expect.fail('expected a task'));
const idle = (of: typeof served) => Promise.all(of.services.map((s) => s.idle()));

describe.each(['in-memory', 'in-memory, two services on one store', 'JSON-RPC', 'HTTP+JSON', 'gRPC', 'WebSocket'])('ifGenerationMatch over %s', (name) => {
  it('two messages matching one generation at once: one is taken, the other is refused with TaskGenerationMismatch', async () => {
    const { transports, call, of } = cases[name]!;
    const asked = taskOf(await transports[0]!.unary('SendMessage', { message: userMessage('start') }, call));
    await idle(of);
    const sent = [userMessage('red', { taskId: asked.id }), userMessage('blue', { taskId: asked.id })];
    of.racing.arm(2);
    const configuration = { ifGenerationMatch: asked.generation };
    const outcomes = await Promise.allSettled(sent.map((message, i) => transports[i % transports.length]!.unary('SendMessage', { message, configuration }, call)));
    await idle(of);
    const won = outcomes.findIndex((o) => o.status === 'fulfilled');
    const lost = outcomes.findIndex((o) => o.status === 'rejected');
    expect([won, lost].sort()).toEqual([0, 1]);
    const refusal = (outcomes[lost] as PromiseRejectedResult).reason as unknown;
    expect(A2AError.is(refusal) && refusal.kind).toBe('TaskGenerationMismatch');
    expect(refusal).toMatchObject({ code: -32010, metadata: { taskId: asked.id } });
    expect(Number((refusal as A2AError).metadata?.currentGeneration)).toBeGreaterThan(asked.generation!);
    // The winner's message is in the history once, the loser's never; the task went on with the winner's.
    const after = await transports[0]!.unary('GetTask', { id: asked.id }, call);
    expect(after.history?.filter((m) => m.role === 'ROLE_USER').map((m) => m.messageId)).toEqual([asked.history![0]!.messageId, sent[won]!.messageId]);
    expect(after.status.message?.parts).toEqual([{ text: `got ${won === 0 ? 'red' : 'blue'}` }]);
    expect(after.generation).toBeGreaterThan(asked.generation!);
  });
});
