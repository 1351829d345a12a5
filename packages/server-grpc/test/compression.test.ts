import * as http2 from 'node:http2';
import { gzipSync } from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import type { Agent } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import { compressedFlagScanner, UNDECLARED_COMPRESSION_MESSAGE } from '../src/compression-guard.js';
import { RPC_CODECS } from '../src/convert.js';
import { closeAfterTest, serve } from './helpers.js';

// PROTOCOL-HTTP2: a message whose Compressed-Flag is 1 is compressed with the
// call's grpc-encoding; without one (or with identity) the flag must be 0,
// and a server refuses such a message with INTERNAL. grpc-js alone passed it
// on to the handler as if it were uncompressed.

/** A server whose agent counts its runs and answers every message. */
async function countingServer() {
  const runs = { count: 0 };
  const agent: Agent = async (ctx) => {
    runs.count++;
    ctx.complete(`got ${ctx.text}`);
  };
  const service = new TaskService({ store: createMemoryTaskStore(), agent });
  closeAfterTest(() => service.close());
  return { server: await serve(service), runs };
}

const request = Buffer.from(
  RPC_CODECS.SendMessage.request.encode({ message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
);

/** One length-prefixed gRPC message. */
function frame(flag: number, body: Buffer): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt8(flag, 0);
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

/** Sends `chunks` as the body of a raw HTTP/2 SendMessage call; resolves with the call's grpc-status and message. */
function rawCall(url: string, chunks: Buffer[], headers: http2.OutgoingHttpHeaders = {}): Promise<{ status: number; message: string }> {
  const session = http2.connect(`http://${url}`);
  closeAfterTest(() => new Promise<void>((resolve) => session.close(() => resolve())));
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': RPC_CODECS.SendMessage.path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    let status: string | undefined;
    let message = '';
    const take = (h: http2.IncomingHttpHeaders) => {
      if (h['grpc-status'] !== undefined) status = String(h['grpc-status']);
      if (h['grpc-message'] !== undefined) message = decodeURIComponent(String(h['grpc-message']));
    };
    stream.on('response', take);
    stream.on('trailers', take);
    stream.on('data', () => {});
    stream.on('error', reject);
    stream.on('close', () => (status === undefined ? reject(new Error('no grpc-status')) : resolve({ status: Number(status), message })));
    for (const chunk of chunks) stream.write(chunk);
    stream.end();
  });
}

describe('a compressed message without a declared grpc-encoding', () => {
  it('is refused with INTERNAL before the agent runs, with no grpc-encoding and with identity', async () => {
    const { server, runs } = await countingServer();
    // A valid uncompressed request: only the flag lies.
    const none = await rawCall(server.url, [frame(1, request)]);
    expect(none).toEqual({ status: grpc.status.INTERNAL, message: UNDECLARED_COMPRESSION_MESSAGE });
    const identity = await rawCall(server.url, [frame(1, request)], { 'grpc-encoding': 'identity' });
    expect(identity.status).toBe(grpc.status.INTERNAL);
    // The flag alone in its own write, the rest after.
    const split = frame(1, request);
    expect((await rawCall(server.url, [split.subarray(0, 1), split.subarray(1)])).status).toBe(grpc.status.INTERNAL);
    expect(runs.count).toBe(0);
  });

  it('leaves an uncompressed call and a gzip call with grpc-encoding: gzip working', async () => {
    const { server, runs } = await countingServer();
    expect(await rawCall(server.url, [frame(0, request)])).toMatchObject({ status: grpc.status.OK });
    expect(await rawCall(server.url, [frame(1, gzipSync(request))], { 'grpc-encoding': 'gzip' })).toMatchObject({ status: grpc.status.OK });
    // A gzip call from grpc-js's own client, compressing every message.
    const client = new grpc.Client(server.url, grpc.credentials.createInsecure(), { 'grpc.default_compression_algorithm': grpc.compressionAlgorithms.gzip });
    closeAfterTest(() => client.close());
    const answer = await new Promise<Buffer>((resolve, reject) =>
      client.makeUnaryRequest(RPC_CODECS.SendMessage.path, (b: Buffer) => b, (b: Buffer) => b, request, (error, value) =>
        error ? reject(error) : resolve(value!),
      ),
    );
    expect(RPC_CODECS.SendMessage.response.decode(answer)).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(runs.count).toBe(3);
  });
});

describe('compressedFlagScanner', () => {
  it('finds the flag of a later message however the bytes are cut', () => {
    const bytes = Buffer.concat([frame(0, request), frame(0, Buffer.alloc(0)), frame(1, request)]);
    for (const size of [1, 2, 5, 7, bytes.length]) {
      let found = 0;
      const scan = compressedFlagScanner(() => found++);
      for (let at = 0; at < bytes.length; at += size) scan(bytes.subarray(at, at + size));
      expect(found, `chunks of ${size}`).toBe(1);
    }
    const clean = compressedFlagScanner(() => expect.unreachable());
    expect(clean(Buffer.concat([frame(0, request), frame(0, Buffer.from([1, 1, 1]))]))).toBe(true);
  });
});
