import { jsonRpcV03Transport } from '@taskwire/client';
import { apiKeyAuth } from '@taskwire/core';
import { serveA2A } from '@taskwire/server-http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TransportFixture } from './harness.js';
import { Harness } from './harness.js';
import { notProtoJson } from './requirements/protojson.js';
import { runConformance } from './suite.js';

/**
 * A2A v0.3 over JSON-RPC: the service served by `serveA2A`, called with v0.3
 * method names and shapes (`message/send`, `kind`, kebab states) by the
 * client's v0.3 transport. A caller identity becomes an API key.
 */
export const v03JsonRpcFixture: TransportFixture = {
  name: 'JSON-RPC (A2A v0.3)',
  async connect(service, caller) {
    const key = caller ? `key-${caller.principalId}` : undefined;
    const auth = caller ? { authenticate: apiKeyAuth({ [key!]: caller.principalId }) } : undefined;
    const server = await serveA2A({ service, port: 0, host: '127.0.0.1', ...(auth && { auth }) });
    const transport = jsonRpcV03Transport({ url: `${server.url}/a2a/jsonrpc`, ...(key && { headers: { 'x-api-key': key } }) });
    return {
      transport,
      close: async () => {
        await transport.close?.();
        await server.close();
      },
    };
  },
};

const V03_CLIENT_TASK_IDS =
  'v0.3 clients choose the ids of new tasks, so a message naming an unknown taskId creates that task (checked below and in server-http seeds-000)';

const V03_RESUBSCRIBE_ENDS_TURN =
  "v0.3's tasks/resubscribe resumes a message/stream, so it ends at the same final (interrupted) event (checked below)";
const V03_NOT_PROTOJSON = notProtoJson('v0.3 JSON-RPC is plain JSON (camelCase names, lower-case enum strings), not ProtoJSON');
const NOT_IN_V03 = { 'send-unknown-task': V03_CLIENT_TASK_IDS, 'subscribe-through-interrupted': V03_RESUBSCRIBE_ENDS_TURN, ...V03_NOT_PROTOJSON };

runConformance(v03JsonRpcFixture, { notApplicable: NOT_IN_V03 });
runConformance(v03JsonRpcFixture, { caller: { principalId: 'alice' }, notApplicable: NOT_IN_V03 });

describe('A2A v0.3 over JSON-RPC: what replaces the requirements v0.3 does not have', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await Harness.open(v03JsonRpcFixture);
  });
  afterEach(async () => {
    await h.close();
  });

  it('a message naming an unknown taskId creates the task with that id (§3.4.2 differs in v0.3)', async () => {
    const task = await h.send('echo mine', { taskId: 'client-chosen-id', contextId: 'client-ctx' });
    expect(task.id).toBe('client-chosen-id');
    expect(task.contextId).toBe('client-ctx');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const again = await h.error(h.send('echo again', { taskId: 'client-chosen-id' }));
    expect(again.code).toBe(-32004);
  });

  it('tasks/resubscribe to an input-required task ends with it, as the message/stream it resumes did (v0.3 §7.9)', async () => {
    const asked = await h.send('quote');
    const events = await h.collect(h.client.stream('SubscribeToTask', { id: asked.id }));
    expect(events.map((e) => 'task' in e.response && e.response.task.status.state)).toEqual(['TASK_STATE_INPUT_REQUIRED']);
  });
});
