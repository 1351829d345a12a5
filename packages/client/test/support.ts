// Test helpers shared by this package's tests.
import type { CallOptions, ParamsOf, ResultOf, StreamEvent, StreamMethodName, TaskService, Transport, UnaryMethodName } from '@taskwire/core';
import { createMemoryTaskStore, inMemoryTransport, TaskService as Service } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { TransientError } from '../src/transient.js';

/** A service running the reference agent on a memory store; its card says it streams. */
export function referenceService(streaming = true): TaskService {
  const card = referenceAgentCard([{ url: 'memory://test', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  return new Service({
    store: createMemoryTaskStore(),
    agent: referenceAgent,
    card: { ...card, capabilities: { ...card.capabilities, streaming } },
  });
}

/** One call a {@link RecordingTransport} saw. */
export interface RecordedCall {
  readonly method: string;
  readonly params: unknown;
  readonly options: CallOptions | undefined;
}

/** How a {@link faultyTransport} misbehaves. */
export interface FaultPlan {
  /** For the n-th stream opened (0-based), cut it after this many events (undefined: never). */
  readonly cutStreams?: readonly (number | undefined)[];
  /** How a cut looks: a network error (default) or a clean end of the stream. */
  readonly cutAs?: 'error' | 'end';
  /** The `Retry-After` (in ms) a cut as an error carries, as a server's 503 would. */
  readonly cutRetryAfterMs?: number;
  /** Fails a unary call before it reaches the service when this returns an error. */
  readonly failUnary?: (method: string, index: number) => Error | undefined;
}

/** A transport that records every call. */
export interface RecordingTransport extends Transport {
  readonly calls: RecordedCall[];
}

/**
 * Wraps `inner` to record calls and inject faults: streams cut mid-way (as
 * an error or a clean end), unary calls that fail before reaching the agent.
 */
export function faultyTransport(inner: Transport, plan: FaultPlan = {}): RecordingTransport {
  const calls: RecordedCall[] = [];
  let streams = 0;
  let unaries = 0;
  return {
    calls,
    async unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<ResultOf<M>> {
      calls.push({ method, params, options });
      const failure = plan.failUnary?.(method, unaries++);
      if (failure) throw failure;
      return inner.unary(method, params, options);
    },
    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): AsyncIterable<StreamEvent> {
      calls.push({ method, params, options });
      const cutAfter = plan.cutStreams?.[streams++];
      let delivered = 0;
      for await (const event of inner.stream(method, params, options)) {
        if (cutAfter !== undefined && delivered >= cutAfter) {
          if (plan.cutAs === 'end') return;
          throw new TransientError('connection reset (injected)', { retryAfterMs: plan.cutRetryAfterMs });
        }
        delivered++;
        yield event;
      }
    },
  };
}

/** The in-memory transport of `service`, recorded and possibly faulty. */
export function serviceTransport(service: TaskService, plan?: FaultPlan): RecordingTransport {
  return faultyTransport(inMemoryTransport(service), plan);
}

/** Collects an async iterable. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
