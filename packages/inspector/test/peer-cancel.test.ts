// Our client against the @a2a-js/sdk peer, canceling a streamed task. The
// peer's canceled status update carries no contextId (the peer's executor is
// not told the task's context on cancel and publishes an empty one, which
// ProtoJSON leaves out of the JSON): a spec violation (context_id is
// REQUIRED) that the client's conversation must get through.
import { createClient } from '@taskwire/client';
import { grpcTransport } from '@taskwire/client/grpc';
import type { StreamEvent } from '@taskwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PeerAgent } from './peer-agent.js';
import { startPeerAgent } from './peer-agent.js';

let peer: PeerAgent;
beforeAll(async () => {
  peer = await startPeerAgent({ allTransports: true });
});
afterAll(() => peer.close());

describe.each(['JSONRPC', 'HTTP+JSON', 'GRPC'])('canceling a streamed task of the @a2a-js/sdk peer over %s', (binding) => {
  it('ends the stream canceled and keeps the conversation in its context', async () => {
    const client = await createClient(peer.url, { preferred: [binding], transports: { GRPC: (t) => grpcTransport({ url: t.url }) } });
    try {
      expect(client.interface?.protocolBinding).toBe(binding);
      const convo = client.conversation();
      const events: StreamEvent[] = [];
      for await (const event of convo.stream('slow 50 100')) {
        events.push(event);
        if ('statusUpdate' in event.response && event.response.statusUpdate.status.state === 'TASK_STATE_WORKING' && events.length < 4) await convo.cancel();
      }
      const context = convo.contextId;
      expect(context).toMatch(/.+/);
      const last = events.at(-1)!.response;
      expect(last).toMatchObject({ statusUpdate: { taskId: convo.taskId, status: { state: 'TASK_STATE_CANCELED' } } });
      expect(convo.state).toBe('TASK_STATE_CANCELED');
      expect(convo.view).toMatchObject({ state: 'TASK_STATE_CANCELED', streaming: false, contextId: context, taskId: convo.taskId });

      const next = await convo.send('echo again');
      expect(next.text).toBe('again');
      expect(next.task!.contextId).toBe(context);
      expect(convo.view.contextId).toBe(context);
    } finally {
      await client.close();
    }
  });
});
