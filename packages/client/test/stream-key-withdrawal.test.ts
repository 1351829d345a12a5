// Streams end when their credential's signing key is withdrawn: a real OpenID
// provider (oidc-provider) issues a token, a long stream is opened with it over
// JSON-RPC, HTTP+JSON, gRPC and WebSocket, and the provider then rolls its keys,
// dropping the one that signed the token. The server (jwtAuth, checking the
// key set every 200 ms while streams may be open) ends the stream with
// Unauthenticated (key_withdrawn); the old token is refused from then on; a
// client with a token provider resumes with a token signed by the new key.
import { jwtAuth } from '@taskwire/auth';
import type { TestIdp } from '@taskwire/auth/testing';
import { startTestIdp } from '@taskwire/auth/testing';
import type { StreamEvent } from '@taskwire/core';
import { A2AError, createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenCallback } from '../src/auth/token-provider.js';
import { createClient } from '../src/create-client.js';
import type { Served } from './serve-reference.js';
import { NODE_TRANSPORTS, serveEverywhere, WS_PROTOCOL_BINDING } from './serve-reference.js';

const AUDIENCE = 'https://agent.taskwire.test/withdrawal';
const APP = { clientId: 'streamer', clientSecret: 'streamer-secret-0123456789abcdef', scopes: ['tasks:read', 'tasks:write'] };

let idp: TestIdp;
let service: TaskService;
let served: Served;
beforeAll(async () => {
  idp = await startTestIdp({ audience: AUDIENCE, clients: [APP], tokenTtlSeconds: 600 });
  service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card: referenceAgentCard([{ url: 'memory://x', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]) });
  served = await serveEverywhere(service, { auth: jwtAuth({ issuer: idp.issuer, audience: AUDIENCE, keyCheckIntervalMs: 200 }) });
});
afterAll(async () => {
  await served?.close();
  await service?.close();
  await idp?.close();
});

/** A task that runs about three seconds, with an event every 200 ms. */
const slow = () => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'slow 15 200' }] } });
const stateOf = (event: StreamEvent) => ('task' in event.response ? event.response.task.status.state : 'statusUpdate' in event.response ? event.response.statusUpdate.status.state : undefined);
const options = (binding: string) => ({ preferred: [binding], transports: NODE_TRANSPORTS, trustedOrigins: [served.grpcUrl] });
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe.each(['JSONRPC', 'HTTP+JSON', 'GRPC', WS_PROTOCOL_BINDING] as const)('a stream over %s whose token signing key is withdrawn', { timeout: 60_000 }, (binding) => {
  it('ends with Unauthenticated (key withdrawn) after the events before it, and the old token is refused from then on', async () => {
    const token = await idp.token(APP);
    const client = await createClient(served.url, { ...options(binding), headers: { authorization: `Bearer ${token}` } });
    const seen: StreamEvent[] = [];
    const ended = await failureOf(
      (async () => {
        for await (const event of client.sendStreamingMessage(slow())) {
          seen.push(event);
          if (seen.length === 1) await idp.rotateKeys(true); // the provider drops the key that signed the token
        }
      })(),
    );
    await client.close();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.map(stateOf)).not.toContain('TASK_STATE_COMPLETED');
    expect(A2AError.is(ended) && ended.kind).toBe('Unauthenticated');
    expect((ended as Error).message).toContain('The key that signed this credential was withdrawn by its issuer');

    const again = await createClient(served.url, { ...options(binding), headers: { authorization: `Bearer ${token}` } });
    const refused = await failureOf(again.listTasks({}));
    await again.close();
    expect(A2AError.is(refused) && refused.kind).toBe('Unauthenticated');
    expect((refused as Error).message).toContain('signed with a key the issuer does not publish (unknown kid)');
  });

  it('with a token provider, the client resumes with a token signed by the new key and follows the task to its end', async () => {
    const asked: boolean[] = [];
    const auth = tokenCallback((fresh) => (asked.push(fresh), idp.token(APP)));
    const client = await createClient(served.url, { ...options(binding), auth });
    const states: (string | undefined)[] = [];
    for await (const event of client.sendStreamingMessage(slow())) {
      states.push(stateOf(event));
      if (states.length === 1) await idp.rotateKeys(true);
    }
    await client.close();
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(asked[0]).toBe(false);
    expect(asked).toContain(true);
  });
});
