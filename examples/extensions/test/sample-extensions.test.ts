// The Timestamp and Traceability sample extensions on an agent served over HTTP, called by our client.
import { activatedExtensions, createClient } from '@taskwire/client';
import type { Agent, Message, StreamEvent } from '@taskwire/core';
import { artifact, completed, createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgentCard } from '@taskwire/reference-agent';
import { serveA2A, type A2AServer } from '@taskwire/server-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIMESTAMP_URI, timestampExtension, timestampOf, traceabilityExtension, TRACEABILITY_URI, traceOf, withTimestamps, withTraceability } from '../src/index.js';

const T0 = Date.parse('2026-12-07T05:00:00.000Z');

/** A helper-style agent: an artifact, then done. */
const helpers: Agent = async (ctx) => {
  await ctx.artifact({ name: 'answer', text: `you said ${ctx.text}` });
  await ctx.complete('Done.');
};

/** A generator agent: the same, yielded. */
async function* generator(): AsyncGenerator<ReturnType<typeof artifact>> {
  yield artifact({ name: 'answer', text: 'yielded' });
  yield completed('Done.');
}

let server: A2AServer;
let clock = T0;
beforeAll(async () => {
  const plain = referenceAgentCard([{ url: 'memory://x', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  const card = { ...plain, capabilities: { ...plain.capabilities, extensions: [timestampExtension, traceabilityExtension] } };
  const now = () => (clock += 250);
  const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  const agent: Agent = (ctx) => (ctx.text === 'generator' ? generator() : helpers(ctx));
  const both = withTraceability(withTimestamps(agent, now), { name: 'echo agent', now, newId: () => ids.shift() ?? 'z' });
  server = await serveA2A({ service: new TaskService({ store: createMemoryTaskStore(), agent: both, card }), port: 0, host: '127.0.0.1' });
});
afterAll(() => server.close());

const message = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

describe('the Timestamp and Traceability sample extensions', () => {
  it('stamp every message and artifact when asked for, and say so in A2A-Extensions', async () => {
    const client = await createClient(server.url, { extensions: [TIMESTAMP_URI, TRACEABILITY_URI] });
    try {
      const sent = await client.sendMessage({ message: message('hi') });
      expect(activatedExtensions(sent)).toEqual([TRACEABILITY_URI, TIMESTAMP_URI]);
      if (!('task' in sent)) throw new Error('expected a task');
      const [answer] = sent.task.artifacts ?? [];
      const status = sent.task.status.message;
      expect(timestampOf(answer)).toMatch(/^2026-12-07T05:00:\d\d\.\d{3}Z$/);
      expect(timestampOf(status)! > timestampOf(answer)!).toBe(true);
      expect(answer?.extensions).toEqual([TIMESTAMP_URI, TRACEABILITY_URI]);
      expect(status?.extensions).toEqual([TIMESTAMP_URI, TRACEABILITY_URI]);
      const trace = traceOf(status)!;
      expect(trace.trace_id).toBe('trace-a');
      expect(trace.steps).toEqual([
        expect.objectContaining({ step_id: 'step-b', trace_id: 'trace-a', call_type: 'AGENT', name: 'echo agent', latency: expect.any(Number) }),
      ]);
      expect(Date.parse(trace.steps[0]!.end_time) - Date.parse(trace.steps[0]!.start_time)).toBe(trace.steps[0]!.latency);
    } finally {
      await client.close();
    }
  });

  it('stamp the events a generator agent yields, on a stream', async () => {
    const client = await createClient(server.url, { extensions: [TIMESTAMP_URI] });
    try {
      const events: StreamEvent[] = [];
      for await (const event of client.sendStreamingMessage({ message: message('generator') })) events.push(event);
      const chunk = events.map((e) => e.response).find((r) => 'artifactUpdate' in r);
      expect(chunk && 'artifactUpdate' in chunk && timestampOf(chunk.artifactUpdate.artifact)).toMatch(/Z$/);
      expect(chunk && 'artifactUpdate' in chunk && traceOf(chunk.artifactUpdate.artifact)).toBeUndefined();
      for (const event of events) expect(activatedExtensions(event)).toEqual([TIMESTAMP_URI]);
    } finally {
      await client.close();
    }
  });

  it('leave the answer alone when not asked for', async () => {
    const client = await createClient(server.url);
    try {
      const sent = await client.sendMessage({ message: message('hi') });
      if (!('task' in sent)) throw new Error('expected a task');
      expect(sent.task.artifacts?.[0]?.metadata).toBeUndefined();
      expect(sent.task.status.message?.metadata).toBeUndefined();
      expect(sent.task.status.message?.extensions).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});
