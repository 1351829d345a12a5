import type { Socket } from 'node:net';
import type { Logger, TaskService } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocketServerHandle } from './serve.js';
import { serveWebSocket } from './serve.js';
import { RawSocket, referenceService } from './test-kit.js';

// Found by the reliability suite's hostile-input corpus (packages/reliability): every frame that broke
// RFC 6455 was logged as "A2A WebSocket call failed" at error level, so any client could flood the log.

/** A client text frame without the mask RFC 6455 requires of clients. */
const UNMASKED = Buffer.from([0x81, 0x02, 0x7b, 0x7d]);
/** A masked text frame (mask 0) whose payload is not UTF-8. */
const NOT_UTF8 = Buffer.from([0x81, 0x82, 0, 0, 0, 0, 0xc3, 0x28]);

describe('a peer that breaks the WebSocket protocol', () => {
  let service: TaskService;
  let server: WebSocketServerHandle;
  afterEach(async () => {
    await server.close();
    await service.close();
  });

  it.each([
    ['an unmasked frame', UNMASKED, 1002],
    ['a text frame that is not UTF-8', NOT_UTF8, 1007],
  ])('%s: its connection closes with %#, nothing is logged as a server failure, the server serves on', async (_name, bytes, code) => {
    const errors: unknown[] = [];
    const logger: Logger = { warn() {}, error: (meta, message) => errors.push({ message, meta }) };
    service = referenceService();
    server = await serveWebSocket({ service, logger });
    const bad = await RawSocket.open(server.url);
    (bad.socket as unknown as { _socket: Socket })._socket.write(bytes);
    expect((await bad.closed).code).toBe(code);
    const good = await RawSocket.open(server.url);
    good.send({ id: 1, method: 'query', params: { path: 'GetTask', input: { id: 'nope' } } });
    expect((await good.answer(1)).error?.data.a2a).toMatchObject({ reason: 'TASK_NOT_FOUND' });
    good.close();
    expect(errors).toEqual([]);
  });
});
