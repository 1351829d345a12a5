import type { StreamResponse } from '@taskwire/core';
import type { AgentUrls } from '../support/agent-process.js';
import type { NumberedEvent } from '../support/lifecycle-check.js';
import { drain } from '../support/lifecycle-check.js';
import type { Binding } from '../support/transports.js';
import { connectTransport } from '../support/transports.js';
import type { RawReader } from './raw-readers.js';
import { sseReader, wsReader } from './raw-readers.js';

/** A subscriber that stops reading once its subscription starts, until told to read on. */
export interface StalledReader {
  readonly started: Promise<void>;
  /** Reads on, and resolves with every event of the stream. */
  finish(): Promise<NumberedEvent[]>;
}

/** The three kinds of subscriber of one binding, all subscribing from the first event (`afterSequence` 0). */
export interface ReaderKit {
  readonly binding: Binding;
  /** Reads the whole stream, as fast as it comes (our client transport). */
  normal(taskId: string): Promise<NumberedEvent[]>;
  /** Stops reading at once (its socket, or its HTTP/2 stream, fills up). */
  stalled(taskId: string): StalledReader;
  /** Reads `count` events, then drops its connection without a word. */
  vanishing(taskId: string, count: number): Promise<void>;
  close(): Promise<void>;
}

const JSON_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' };

function rawStalled(reader: RawReader): StalledReader {
  const started = reader.started.then(() => reader.pause());
  return {
    started,
    finish: () => {
      reader.resume();
      return reader.done;
    },
  };
}

async function rawVanishing(reader: RawReader, count: number): Promise<void> {
  await reader.started;
  await reader.received(count);
  reader.destroy();
  await reader.done;
}

/** The subscribers of `binding` against the agent at `urls` (SSE and WebSocket ones read raw sockets; gRPC ones use our client). */
export function readerKit(binding: Binding, urls: AgentUrls): ReaderKit {
  const client = connectTransport(binding, urls);
  const extra = connectTransport(binding, urls);
  const normal = async (taskId: string) => {
    const { events, error } = await drain(client.stream('SubscribeToTask', { id: taskId, afterSequence: 0 }));
    if (error) throw error;
    return events;
  };
  const raw = (taskId: string): RawReader => {
    switch (binding) {
      case 'JSON-RPC': {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId, afterSequence: 0 } });
        return sseReader(urls.jsonRpc, { method: 'POST', headers: JSON_HEADERS, body }, (data) => (data as { result: StreamResponse }).result);
      }
      case 'HTTP+JSON':
        return sseReader(`${urls.rest}/tasks/${encodeURIComponent(taskId)}:subscribe`, { method: 'GET', headers: { ...JSON_HEADERS, 'last-event-id': '0' } }, (data) => data as StreamResponse);
      default:
        return wsReader(urls.ws, {}, 'SubscribeToTask', { id: taskId, afterSequence: 0 });
    }
  };
  if (binding !== 'gRPC') {
    return {
      binding,
      normal,
      stalled: (taskId) => rawStalled(raw(taskId)),
      vanishing: (taskId, count) => rawVanishing(raw(taskId), count),
      close: async () => Promise.all([client.close(), extra.close()]).then(() => undefined),
    };
  }
  // gRPC: a stream left unread stops asking grpc-js for messages, so HTTP/2 flow control holds the server back.
  return {
    binding,
    normal,
    stalled(taskId) {
      const events = extra.stream('SubscribeToTask', { id: taskId, afterSequence: 0 })[Symbol.asyncIterator]();
      const first = events.next();
      return {
        started: first.then(() => undefined),
        async finish() {
          const out: NumberedEvent[] = [];
          for (let item = await first; !item.done; item = await events.next()) out.push(item.value);
          return out;
        },
      };
    },
    async vanishing(taskId, count) {
      const abort = new AbortController();
      let seen = 0;
      for await (const _event of extra.stream('SubscribeToTask', { id: taskId, afterSequence: 0 }, { signal: abort.signal })) {
        if (++seen >= count) abort.abort();
      }
    },
    close: async () => Promise.all([client.close(), extra.close()]).then(() => undefined),
  };
}
