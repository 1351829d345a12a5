import * as grpc from '@grpc/grpc-js';
import { A2AError, apiKeyAuth } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import { decodeStatusDetails, encodeStatusDetails, forTrailers } from '../src/convert.js';
import { connect, rawUnary, referenceService, serve } from './helpers.js';

// Found by the reliability suite's hostile-input corpus (packages/reliability).

describe('errors that echo a huge input', () => {
  it('a GetTask naming a 150 KB id gets NOT_FOUND with a bounded status, and the connection keeps working', async () => {
    const server = await serve(referenceService());
    const client = connect(server.url);
    const error = await client.unary('GetTask', { id: 'a'.repeat(150_000) }).catch((e: unknown) => e);
    expect(A2AError.is(error) && error.kind).toBe('TaskNotFound');
    expect((error as A2AError).message.length).toBeLessThan(1_000);
    expect((error as A2AError).message).toMatch(/… \(1500\d\d characters in all\)$/);
    // Before: trailers past HTTP/2's header limit were never sent, and every later call on the connection hung.
    const next = await client.unary('GetTask', { id: 'nope' }).catch((e: unknown) => e);
    expect(A2AError.is(next) && next.kind).toBe('TaskNotFound');
  });

  it('forTrailers cuts long messages and metadata, drops an oversized BadRequest, and leaves small errors alone', () => {
    const small = new A2AError('TaskNotFound', 'Task x was not found', { taskId: 'x' });
    expect(forTrailers(small)).toBe(small);
    const violations = Array.from({ length: 5_000 }, (_, i) => ({ field: `message.parts[${i}]`, description: 'a part needs exactly one of text, raw, url, data' }));
    const huge = new A2AError('InvalidParams', 'x'.repeat(10_000), { field: 'y'.repeat(10_000) }, [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: violations }]);
    const bounded = forTrailers(huge);
    expect(bounded.kind).toBe('InvalidParams');
    expect(bounded.message.length).toBeLessThan(600);
    expect(bounded.metadata.field!.length).toBeLessThan(600);
    expect(encodeStatusDetails(bounded).length).toBeLessThanOrEqual(4096);
    expect(decodeStatusDetails(encodeStatusDetails(bounded))?.details[0]).toMatchObject({ reason: 'INVALID_PARAMS' });
  });
});

describe('authentication comes first', () => {
  it('undecodable bytes from a caller without credentials get UNAUTHENTICATED, not INVALID_ARGUMENT', async () => {
    const server = await serve(referenceService(), { auth: { authenticate: apiKeyAuth({ k: 'alice' }) } });
    const garbage = Buffer.from([0x17, 0x78, 0x78]); // field 2, wire type 7: not protobuf
    expect((await rawUnary(server.url, 'GetTask', garbage)).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await rawUnary(server.url, 'GetTask', garbage, { 'x-api-key': 'k' })).error?.code).toBe(grpc.status.INVALID_ARGUMENT);
  });
});
