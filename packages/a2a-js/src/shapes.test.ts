import { Message as JsMessage, TaskState as JsTaskState } from '@a2a-js/sdk';
import type { Message, TaskState } from '@taskwire/core';
import { TaskStateSchema } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import { fromJsMessage, fromJsState, toJsMessage, toJsState } from './shapes.js';

const message: Message = {
  messageId: 'm1',
  contextId: 'c1',
  taskId: 't1',
  role: 'ROLE_USER',
  parts: [
    { text: 'hi', mediaType: 'text/plain', metadata: { lang: 'en' } },
    { raw: Buffer.from('bytes \u00ff').toString('base64'), filename: 'a.bin', mediaType: 'application/octet-stream' },
    { url: 'https://example.com/a.png', mediaType: 'image/png' },
    { data: { n: 1, list: [true, null] } },
  ],
  metadata: { k: 'v' },
  extensions: ['https://example.com/ext'],
  referenceTaskIds: ['t0'],
};

describe("Taskwire's shapes and a2a-js's", () => {
  it("give every task state a2a-js's number, both ways", () => {
    for (const state of TaskStateSchema.options) {
      expect(toJsState(state)).toBe(JsTaskState[state as keyof typeof JsTaskState]);
      expect(fromJsState(toJsState(state))).toBe(state);
    }
    expect(fromJsState(JsTaskState.TASK_STATE_UNSPECIFIED)).toBeUndefined();
  });

  it('map a message with every kind of part as a2a-js reads and writes it (its own ProtoJSON agrees)', () => {
    const js = toJsMessage(message);
    // a2a-js's generated converter turns our mapping into the same v1.0 JSON we started from.
    expect(JsMessage.toJSON(js)).toEqual(message);
    expect(js.parts[1]!.content).toEqual({ $case: 'raw', value: Buffer.from('bytes \u00ff') });
    expect(fromJsMessage(js)).toEqual(message);
    expect(fromJsMessage(JsMessage.fromJSON(message))).toEqual(message);
  });

  it('leave out what a2a-js fills with empty defaults', () => {
    const bare: Message = { messageId: 'm2', role: 'ROLE_AGENT', parts: [{ text: 'ok' }] };
    expect(fromJsMessage(toJsMessage(bare))).toEqual(bare);
    expect(toJsState('TASK_STATE_WORKING' satisfies TaskState)).toBe(2);
  });
});
