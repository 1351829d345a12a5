import * as grpc from '@grpc/grpc-js';
import type { AgentInterface, TaskService } from '@taskwire/core';
import { refuseUndeclaredCompression } from './compression-guard.js';
import { DEFAULT_MAX_MESSAGE_BYTES, GRPC_PROTOCOL_VERSION } from './metadata.js';
import type { A2AServiceOptions } from './service.js';
import { addA2AService } from './service.js';

/**
 * How long {@link serveGrpc} keeps connections that do nothing, and how it
 * finds dead peers. Calls in progress (streams included) are never cut by
 * the idle bound.
 */
export interface GrpcTimeouts {
  /**
   * A connection with no call in progress is closed (GOAWAY) after this
   * long, counted from its start or its last call's end: also a client that
   * connects and never completes the HTTP/2 handshake. Default 120 000 ms;
   * clients reconnect on their next call.
   */
  readonly idleMs?: number;
  /** The server pings each connection this often (default 60 000 ms) ... */
  readonly keepaliveMs?: number;
  /** ... and closes it when the ping is not answered within this (default 20 000 ms): a vanished peer's streams end. */
  readonly keepaliveTimeoutMs?: number;
}

/** The timeouts used when none are given. */
export const DEFAULT_GRPC_TIMEOUTS: Required<GrpcTimeouts> = { idleMs: 120_000, keepaliveMs: 60_000, keepaliveTimeoutMs: 20_000 };

/** How {@link serveGrpc} starts a server. */
export interface ServeGrpcOptions extends A2AServiceOptions {
  readonly service: TaskService;
  /** The port to listen on; 0 (the default) picks a free one. */
  readonly port?: number;
  /** The address to listen on; default `127.0.0.1`. */
  readonly host?: string;
  /** Request and response size limit in bytes (default {@link DEFAULT_MAX_MESSAGE_BYTES}); larger ones fail with RESOURCE_EXHAUSTED. */
  readonly maxMessageBytes?: number;
  /**
   * The address clients reach this server at when it is not its own, e.g.
   * a load balancer's `grpc.example.com:443` in front of several replicas:
   * `host:port` (a name, an IPv4 address or a bracketed IPv6 address).
   * Put it in the card with `grpcInterface(handle.publicUrl)` so that
   * clients that read the card stay behind the balancer. Default: the
   * server's own address ({@link GrpcServerHandle.url}).
   */
  readonly publicUrl?: string;
  /** TLS or other server credentials; default insecure (plaintext, for local use and tests). */
  readonly credentials?: grpc.ServerCredentials;
  /** Idle connections and dead peers (see {@link GrpcTimeouts}); the rest keep {@link DEFAULT_GRPC_TIMEOUTS}. */
  readonly timeouts?: GrpcTimeouts;
  /**
   * Further grpc-js server options; they win over the ones set from
   * `maxMessageBytes` and `timeouts`. Their `interceptors` run after
   * {@link refuseUndeclaredCompression}, which is always first.
   */
  readonly serverOptions?: grpc.ServerOptions;
}

/** A running gRPC server. */
export interface GrpcServerHandle {
  /** The port it listens on. */
  readonly port: number;
  /** Its address as agent cards and `grpcTransport` take it: `host:port`. */
  readonly url: string;
  /** The address for the card: `publicUrl` when given, else {@link url}. */
  readonly publicUrl: string;
  /** The underlying grpc-js server (to add further services). */
  readonly server: grpc.Server;
  /**
   * Stops accepting calls and resolves once the calls in progress have
   * finished; calls still open after `graceMs` (default 5000) are cancelled.
   * Tasks are not cancelled: a client can resubscribe elsewhere.
   */
  close(graceMs?: number): Promise<void>;
}

function hostPort(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Checks a gRPC address option (a public `host:port`): a host name, IPv4
 * address or bracketed IPv6 address, and a port from 1 to 65535. Returns
 * it as given; throws a TypeError naming `option` otherwise.
 */
export function grpcAddress(value: string, option = 'publicUrl'): string {
  const match = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$/.exec(value);
  if (!match || Number(match[1]) < 1 || Number(match[1]) > 65535) {
    throw new TypeError(`${option} must be host:port, e.g. grpc.example.com:443 (got "${value}")`);
  }
  return value;
}

/**
 * Starts a grpc-js server serving `lf.a2a.v1.A2AService` over `service`
 * with message size limits, an idle-connection bound and keepalive pings
 * set (see {@link GrpcTimeouts}), compressed messages without a declared
 * `grpc-encoding` refused with INTERNAL ({@link refuseUndeclaredCompression}),
 * and resolves once it listens.
 */
export async function serveGrpc(options: ServeGrpcOptions): Promise<GrpcServerHandle> {
  const { service, port = 0, host = '127.0.0.1', maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES } = options;
  const timeouts = { ...DEFAULT_GRPC_TIMEOUTS, ...options.timeouts };
  const publicUrl = options.publicUrl === undefined ? undefined : grpcAddress(options.publicUrl);
  const server = new grpc.Server({
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': maxMessageBytes,
    'grpc.max_connection_idle_ms': timeouts.idleMs,
    'grpc.keepalive_time_ms': timeouts.keepaliveMs,
    'grpc.keepalive_timeout_ms': timeouts.keepaliveTimeoutMs,
    ...options.serverOptions,
    interceptors: [refuseUndeclaredCompression, ...(options.serverOptions?.interceptors ?? [])],
  });
  addA2AService(server, service, options);
  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(hostPort(host, port), options.credentials ?? grpc.ServerCredentials.createInsecure(), (error, actual) =>
      error ? reject(new Error(`Could not listen for gRPC on ${hostPort(host, port)}: ${error.message}`)) : resolve(actual),
    );
  });
  let closing: Promise<void> | undefined;
  return {
    port: bound,
    url: hostPort(host, bound),
    publicUrl: publicUrl ?? hostPort(host, bound),
    server,
    close(graceMs = 5000) {
      closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.forceShutdown(), graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      return closing;
    },
  };
}

/**
 * The agent card entry of a gRPC endpoint: `url` as `host:port`,
 * protocolBinding `GRPC`, protocolVersion `1.0`, and the tenant if any.
 */
export function grpcInterface(url: string, tenant?: string): AgentInterface {
  return { url, protocolBinding: 'GRPC', protocolVersion: GRPC_PROTOCOL_VERSION, ...(tenant !== undefined && { tenant }) };
}
