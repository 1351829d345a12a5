import { connect, constants, type ClientHttp2Session } from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import type { Random } from '../support/random.js';
import { API_KEY } from './fixtures.js';
import type { HostileCase } from './hostile-case.js';
import { bytesField } from './protobuf.js';

const PATH = '/lf.a2a.v1.A2AService/GetTask';

/** A gRPC length-prefixed message: compressed flag, 4-byte big-endian length, then `payload` (possibly shorter than `declared`). */
function frame(payload: Buffer, declared = payload.length, compressed = 0): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(compressed, 0);
  head.writeUInt32BE(declared, 1);
  return Buffer.concat([head, payload]);
}

/** What an HTTP/2 exchange ended with: the HTTP status and the grpc-status (from headers or trailers). */
interface H2Outcome {
  readonly httpStatus: number | undefined;
  readonly grpcStatus: number | undefined;
}

/**
 * Malformed gRPC at the HTTP/2 level, below what a gRPC client sends:
 * messages cut short or declared larger than the limit, two messages (or
 * none) for a unary rpc, a compressed message with an unknown or broken
 * encoding, a bad `grpc-timeout`, a non-gRPC content type, and a stream
 * reset in the middle of a message. grpc-js answers each with its own
 * status (UNIMPLEMENTED for the wrong number of messages, as the gRPC spec
 * says for cardinality violations); a reset stream gets no answer and must
 * leave the server unharmed.
 */
export function h2Cases(url: string, random: Random, count: number): { cases: HostileCase[]; close(): void } {
  let session: ClientHttp2Session | undefined;
  const sessionOf = () => {
    if (!session || session.closed || session.destroyed) {
      session = connect(`http://${url}`);
      session.on('error', () => undefined);
    }
    return session;
  };
  const exchange = (headers: Record<string, string>, body: Buffer, reset: boolean) =>
    new Promise<H2Outcome>((resolve) => {
      let httpStatus: number | undefined;
      let grpcStatus: number | undefined;
      const req = sessionOf().request({ ':method': 'POST', ':path': PATH, 'content-type': 'application/grpc', te: 'trailers', 'x-api-key': API_KEY, ...headers });
      req.on('response', (h) => {
        httpStatus = Number(h[':status']);
        if (h['grpc-status'] !== undefined) grpcStatus = Number(h['grpc-status']);
      });
      req.on('trailers', (h) => {
        if (h['grpc-status'] !== undefined) grpcStatus = Number(h['grpc-status']);
      });
      req.on('data', () => undefined);
      req.on('error', () => undefined);
      req.on('close', () => resolve({ httpStatus, grpcStatus }));
      if (reset) req.write(body, () => req.close(constants.NGHTTP2_CANCEL));
      else req.end(body);
    });
  const h2Case = (name: string, headers: Record<string, string>, body: Buffer, expect: { grpc?: grpc.status; http?: number; reset?: boolean }): HostileCase => ({
    category: 'truncated frames',
    name: `HTTP/2: ${name}`,
    run: async () => {
      const outcome = await exchange(headers, body, expect.reset === true);
      if (expect.reset) return [];
      const problems: string[] = [];
      if (expect.http !== undefined && outcome.httpStatus !== expect.http) problems.push(`HTTP ${String(outcome.httpStatus)} instead of ${expect.http}`);
      if (expect.grpc !== undefined && outcome.grpcStatus !== expect.grpc) {
        problems.push(`grpc-status ${String(outcome.grpcStatus)} instead of ${expect.grpc} (${grpc.status[expect.grpc]})`);
      }
      return problems;
    },
  });
  const request = bytesField(2, 'some-task');
  const makers: Array<() => HostileCase> = [
    () => {
      const declared = request.length + random.int(1, 10_000);
      return h2Case(`a message declared ${declared} bytes, cut at ${request.length}`, {}, frame(request, declared), { grpc: grpc.status.UNIMPLEMENTED });
    },
    () => h2Case('an incomplete message header', {}, frame(request).subarray(0, random.int(1, 4)), { grpc: grpc.status.UNIMPLEMENTED }),
    () => h2Case('no message at all', {}, Buffer.alloc(0), { grpc: grpc.status.UNIMPLEMENTED }),
    () => h2Case('two messages for a unary rpc', {}, Buffer.concat([frame(request), frame(request)]), { grpc: grpc.status.UNIMPLEMENTED }),
    () => h2Case('a message declared past the size limit', {}, frame(request, random.int(4 * 1024 * 1024 + 1, 0xffffffff)), { grpc: grpc.status.RESOURCE_EXHAUSTED }),
    () => h2Case('gzip that is not gzip', { 'grpc-encoding': 'gzip' }, frame(request, request.length, 1), { grpc: grpc.status.INTERNAL }),
    () => h2Case('an unknown grpc-encoding', { 'grpc-encoding': random.pick(['bogus', 'br', 'x-evil']) }, frame(request, request.length, 1), { grpc: grpc.status.UNIMPLEMENTED }),
    () => h2Case('a grpc-timeout that is not one', { 'grpc-timeout': random.pick(['xyz', 'S', '5', 'soon']) }, frame(request), { grpc: grpc.status.INTERNAL }),
    () => h2Case('a JSON content type', { 'content-type': random.pick(['application/json', 'text/plain']) }, Buffer.from('{"id":"x"}'), { http: 415 }),
    () => h2Case('a stream reset in the middle of a message', {}, frame(request, request.length + 100), { reset: true }),
  ];
  return {
    cases: Array.from({ length: count }, () => random.pick(makers)()),
    close: () => session?.close(),
  };
}
