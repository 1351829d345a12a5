import type { Task } from '@a2a-js/sdk';
import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { ClientFactory, ClientFactoryOptions, ServiceParameters, withA2AExtensions } from '@a2a-js/sdk/client';
import type { Agent } from '@taskwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from './test-kit.js';
import { CARD, startServer } from './test-kit.js';

const TIMESTAMP = 'https://example.com/ext/timestamp/v1';
const REQUIRED = 'https://example.com/ext/required/v1';

/** Activates the timestamp extension when asked, and says what was requested and activated. */
const agent: Agent = async (ctx) => {
  ctx.extensions.activate(TIMESTAMP);
  await ctx.complete(`requested ${ctx.extensions.requested.join(' ')}; activated ${ctx.extensions.activated.join(' ')}`);
};

/**
 * The official @a2a-js/sdk client's extension API (`withA2AExtensions`
 * service parameters) against our server: what it asks for reaches the
 * agent, and a card's required extension it leaves out is refused with
 * its ExtensionSupportRequired error.
 */
describe.each(['JSONRPC', 'HTTP+JSON'] as const)('extensions from the @a2a-js/sdk client over %s', (binding) => {
  let server: TestServer;
  let client: Client;
  beforeAll(async () => {
    const card = { ...CARD, capabilities: { ...CARD.capabilities, extensions: [{ uri: TIMESTAMP }, { uri: REQUIRED, required: true }] } };
    server = await startServer({ agent, card });
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
    client = await factory.createFromUrl(server.url);
  });
  afterAll(async () => {
    await server.close();
  });

  const request = () => SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } });

  it('reaches the agent, which activates what it applies', async () => {
    const serviceParameters = ServiceParameters.create(withA2AExtensions(REQUIRED, TIMESTAMP));
    const task = (await client.sendMessage(request(), { serviceParameters })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: `requested ${REQUIRED} ${TIMESTAMP}; activated ${TIMESTAMP}` });
  });

  it('is refused with ExtensionSupportRequired when it leaves out a required extension', async () => {
    const serviceParameters = ServiceParameters.create(withA2AExtensions(TIMESTAMP));
    const error = await client.sendMessage(request(), { serviceParameters }).then(() => undefined, (e: unknown) => e);
    expect((error as Error).constructor.name).toMatch(/ExtensionSupportRequired/);
  });
});
