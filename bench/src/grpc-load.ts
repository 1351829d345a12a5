import { fileURLToPath } from 'node:url';
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import * as grpc from '@grpc/grpc-js';
import { type ServerProcess, startServerProcess } from './server-process.js';

/** A benchmarked gRPC server running in its own process (url: `127.0.0.1:<port>`). */
export type GrpcServerProcess = ServerProcess;

/** The rpc paths the gRPC benchmark calls (lf.a2a.v1.A2AService). */
export const PATHS = {
  SendMessage: '/lf.a2a.v1.A2AService/SendMessage',
  SendStreamingMessage: '/lf.a2a.v1.A2AService/SendStreamingMessage',
} as const;

const SERVER_SCRIPT = fileURLToPath(new URL('./grpc-servers.ts', import.meta.url));

/** Starts `grpc-servers.ts <kind>` in its own process; its url is `127.0.0.1:<port>`. */
export function startGrpcServer(kind: string, env: Record<string, string> = {}): Promise<GrpcServerProcess> {
  return startServerProcess(SERVER_SCRIPT, kind, (port) => `127.0.0.1:${port}`, env);
}

/**
 * The bytes of an `lf.a2a.v1.SendMessageRequest` with one user text
 * message, written field by field (the benchmark's client must not depend
 * on any server's generated code): message = 2 { message_id = 1, role = 4
 * (ROLE_USER = 1), parts = 5 { text = 1 } }.
 */
export function sendMessageRequest(text: string): Buffer {
  const writer = new BinaryWriter();
  writer.uint32((2 << 3) | 2).fork();
  writer.uint32((1 << 3) | 2).string('bench-message');
  writer.uint32((4 << 3) | 0).int32(1);
  writer.uint32((5 << 3) | 2).fork();
  writer.uint32((1 << 3) | 2).string(text);
  writer.join();
  writer.join();
  return Buffer.from(writer.finish());
}

const identity = (bytes: Buffer): Buffer => bytes;

/** Metadata of every benchmark call: the A2A version both A2A servers require. */
function metadata(): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set('a2a-version', '1.0');
  return md;
}

/** A raw client: bytes in, bytes out, so that client work is the same whatever the server. */
export function rawClient(url: string): grpc.Client {
  return new grpc.Client(url, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
}

/** One unary call; resolves the response bytes. */
export function unaryOnce(client: grpc.Client, path: string, request: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(path, identity, identity, request, metadata(), (error, value) => (error ? reject(error) : resolve(value!)));
  });
}

/** One server-streaming call; resolves every message's bytes. */
export function streamOnce(client: grpc.Client, path: string, request: Buffer): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const call = client.makeServerStreamRequest(path, identity, identity, request, metadata());
    call.on('data', (message: Buffer) => out.push(message));
    call.on('error', reject);
    call.on('end', () => resolve(out));
  });
}

/** What one load run measured. */
export interface GrpcLoadResult {
  /** Completed calls (unary) or streams. */
  readonly calls: number;
  /** Stream messages received (streaming runs; equals `calls` for unary). */
  readonly messages: number;
  readonly seconds: number;
  /** Per call (whole stream for streaming), in milliseconds. */
  readonly p50: number;
  readonly p99: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Closed-loop load: `concurrency` calls always in flight on one channel for
 * `seconds`; every call must succeed. Unary when `streaming` is false,
 * else each call reads its whole stream.
 */
export async function load(url: string, path: string, request: Buffer, concurrency: number, seconds: number, streaming: boolean): Promise<GrpcLoadResult> {
  const client = rawClient(url);
  const latencies: number[] = [];
  let messages = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const one = async (): Promise<void> => {
    const t0 = performance.now();
    if (streaming) messages += (await streamOnce(client, path, request)).length;
    else {
      await unaryOnce(client, path, request);
      messages++;
    }
    latencies.push(performance.now() - t0);
  };
  const worker = async () => {
    while (performance.now() < deadline) await one();
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    client.close();
  }
  const elapsed = (performance.now() - started) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  return { calls: latencies.length, messages, seconds: elapsed, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}
