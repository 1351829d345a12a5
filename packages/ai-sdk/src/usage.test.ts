import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TelemetryOptions } from '@taskwire/core';
import { createMemoryTaskStore, inMemoryTransport, TaskService } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import { a2aAgent } from './a2a-agent.js';
import { META_KEY } from './shapes.js';
import { finish, scriptedModel, testCard, text, userMessage } from './test-kit.js';
import { USAGE_ATTRIBUTES } from './usage.js';

describe('usage', () => {
  it('goes onto the run span (gen_ai.usage.*) and into the completion event\'s and message\'s metadata', async () => {
    const spans = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
    const contextManager = new AsyncLocalStorageContextManager().enable();
    const telemetry: TelemetryOptions = { tracerProvider, contextManager };
    const agent = a2aAgent({ model: scriptedModel(() => [...text('counted'), finish()]) }, { telemetry });
    const service = new TaskService({ store: createMemoryTaskStore(), agent, card: testCard('usage'), telemetry });
    try {
      const events = [];
      for await (const event of inMemoryTransport(service).stream('SendStreamingMessage', { message: userMessage('count') })) events.push(event.response);
      await service.idle();
      const last = events.at(-1)!;
      const status = 'statusUpdate' in last ? last.statusUpdate : undefined;
      const usage = { inputTokens: 11, outputTokens: 7, totalTokens: 18 };
      expect(status?.metadata?.[META_KEY]).toEqual({ usage });
      expect((status?.status.message?.metadata?.[META_KEY] as { usage: unknown }).usage).toEqual(usage);
      const run = spans.getFinishedSpans().find((s) => s.name.startsWith('invoke_agent'))!;
      expect(run.attributes).toMatchObject({ [USAGE_ATTRIBUTES.inputTokens]: 11, [USAGE_ATTRIBUTES.outputTokens]: 7, [USAGE_ATTRIBUTES.model]: 'mock-model' });
    } finally {
      await service.close();
      contextManager.disable();
      await tracerProvider.shutdown();
    }
  });
});
