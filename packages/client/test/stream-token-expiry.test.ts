// Streams end with their credential: a JWT with a short `exp` opens a long
// stream over JSON-RPC, HTTP+JSON and gRPC; the server ends it at `exp` with
// its Unauthenticated error, and a client with a token provider resumes it
// with a fresh token and sees the task to its end.
import { jwtAuth } from '@taskwire/auth';
import type { TestIssuer } from '@taskwire/auth/testing';
import { startTestIssuer } from '@taskwire/auth/testing';
import type { StreamEvent } from '@taskwire/core';
import { A2AError, createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenCallback } from '../src/auth/token-provider.js';
import { createClient } from '../src/create-client.js';
import type { Served } from './serve-reference.js';
import { NODE_TRANSPORTS, serveEverywhere } from './serve-reference.js';

const AUDIENCE = 'https://agent.taskwire.test/streams';

let issuer: TestIssuer;
let service: TaskService;
let served: Served;
beforeAll(async () => {
  issuer = await startTestIssuer();
  service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card: referenceAgentCard([{ url: 'memory://x', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]) });
  served = await serveEverywhere(service, { auth: jwtAuth({ issuer: issuer.issuer, audience: AUDIENCE }) });
});
afterAll(async () => {
  await served?.close();
  await service?.close();
  await issuer?.close();
});

/** A JWT for alice that expires `seconds` from now (exp is whole seconds: one second sooner at worst). */
const token = (seconds: number) => issuer.sign({ sub: 'alice', aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + seconds });
/** A task that runs about five seconds, with an event every half second. */
const slow = () => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'slow 10 500' }] } });
const stateOf = (event: StreamEvent) => ('task' in event.response ? event.response.task.status.state : 'statusUpdate' in event.response ? event.response.statusUpdate.status.state : undefined);

describe.each(['JSONRPC', 'HTTP+JSON', 'GRPC'] as const)('a stream over %s opened with a token that has an exp', { timeout: 60_000 }, (binding) => {
  it('ends at exp with Unauthenticated (the credential expired), after the events before it', async () => {
    const client = await createClient(served.url, { preferred: [binding], transports: NODE_TRANSPORTS, trustedOrigins: [served.grpcUrl], headers: { authorization: `Bearer ${await token(2)}` } });
    const seen: StreamEvent[] = [];
    const ended = await (async () => {
      for await (const event of client.sendStreamingMessage(slow())) seen.push(event);
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.map(stateOf)).not.toContain('TASK_STATE_COMPLETED');
    expect(A2AError.is(ended) && ended.kind).toBe('Unauthenticated');
    expect((ended as Error).message).toContain('The credential of this connection has expired');
    await client.close();
  });

  it('with a token provider, the client resumes with a fresh token and follows the task to its end', async () => {
    const asked: boolean[] = [];
    const auth = tokenCallback((fresh) => (asked.push(fresh), token(fresh ? 600 : 2)));
    const client = await createClient(served.url, { preferred: [binding], transports: NODE_TRANSPORTS, trustedOrigins: [served.grpcUrl], auth });
    const states: (string | undefined)[] = [];
    for await (const event of client.sendStreamingMessage(slow())) states.push(stateOf(event));
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(asked).toContain(true);
    expect(asked[0]).toBe(false);
    await client.close();
  });
});
