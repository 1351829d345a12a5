import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestServer } from './test-kit.js';
import { call, startServer } from './test-kit.js';

// Found by the reliability suite's hostile-input corpus (packages/reliability): a client that went
// away in the middle of its request body was logged as "Unexpected error while serving an A2A request".

let server: TestServer;
afterEach(async () => {
  await server.close();
});

describe('a client that vanishes in the middle of its request body', () => {
  it.each(['/a2a/jsonrpc', '/a2a/rest/message:send'])('%s: is not reported as a server failure, and the server serves on', async (path) => {
    const errors: unknown[] = [];
    const logger: Logger = { warn() {}, error: (meta, message) => errors.push({ message, meta }) };
    server = await startServer({ logger });
    const requestClosed = new Promise<void>((resolve) => server.server.once('request', (req: IncomingMessage) => req.once('close', resolve)));
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    const head = `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\na2a-version: 1.0\r\ncontent-length: 500\r\n\r\n`;
    await new Promise<void>((resolve) => socket.write(`${head}{"jsonrpc":"2.0",`, () => resolve()));
    socket.destroy();
    await requestClosed;
    await nextTurn(); // the handler settles in the microtasks right after the request closed
    expect(errors).toEqual([]);
    expect((await call(server.rpcUrl, 'ListTasks', {})).result).toMatchObject({ tasks: [] });
  });
});
