import { describe, expect, it } from 'vitest';
import type { SseMessage } from './sse.js';
import { parseSse, sequenceOf } from './sse.js';

function body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function parse(chunks: string[]): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const message of parseSse(body(chunks))) out.push(message);
  return out;
}

describe('parseSse', () => {
  it('reads id, event and data fields, and skips comments (heartbeats)', async () => {
    const messages = await parse([': heartbeat\n\nid: 7\ndata: {"a":1}\n\n: heartbeat\n\nevent: error\nid: 8\ndata: {"error":{}}\n\n']);
    expect(messages).toEqual([
      { id: '7', event: 'message', data: '{"a":1}' },
      { id: '8', event: 'error', data: '{"error":{}}' },
    ]);
  });

  it('joins multi-line data, keeps the last id for events without one, and ignores unknown fields', async () => {
    const messages = await parse(['id: 3\ndata: first\ndata: second\nretry: 10\nwhatever\n\ndata:no space\n\n']);
    expect(messages).toEqual([
      { id: '3', event: 'message', data: 'first\nsecond' },
      { id: '3', event: 'message', data: 'no space' },
    ]);
  });

  it('handles CRLF and CR line ends, also when split across chunks (even between CR and LF)', async () => {
    const messages = await parse(['id: 1\r', '\ndata: x\r\n\r', '\nid: 2\rdata: y\r\r']);
    expect(messages).toEqual([
      { id: '1', event: 'message', data: 'x' },
      { id: '2', event: 'message', data: 'y' },
    ]);
  });

  it('decodes multi-byte characters split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: héllo ✓\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
        controller.close();
      },
    });
    const out: SseMessage[] = [];
    for await (const message of parseSse(stream)) out.push(message);
    expect(out.map((m) => m.data)).toEqual(['héllo ✓']);
  });

  it('drops an event the stream ended in the middle of, and dispatches nothing for empty data', async () => {
    expect(await parse(['id: 1\n\ndata: complete\n\ndata: cut off'])).toEqual([{ id: '1', event: 'message', data: 'complete' }]);
  });

  it('cancels the body when the consumer stops early', async () => {
    let canceled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('data: tick\n\n'));
      },
      cancel() {
        canceled = true;
      },
    });
    for await (const message of parseSse(stream)) {
      expect(message.data).toBe('tick');
      break;
    }
    expect(canceled).toBe(true);
  });
});

describe('sequenceOf', () => {
  it('reads a decimal event id as the sequence, 0 otherwise', () => {
    expect(sequenceOf('42')).toBe(42);
    expect(sequenceOf(undefined)).toBe(0);
    expect(sequenceOf('abc')).toBe(0);
  });
});
