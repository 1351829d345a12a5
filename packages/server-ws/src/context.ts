import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AuthPolicy, CallContext } from '@taskwire/core';
import { A2AError, authenticateRequest, clientCertificateOf, negotiateVersion } from '@taskwire/core';
import { TRPCError } from '@trpc/server';
import type { CreateWSSContextFnOptions } from '@trpc/server/adapters/ws';
import type { WebSocket } from 'ws';
import type { ConnectionSlots } from './connection.js';
import { trpcCodeOf } from './errors.js';

/**
 * What every procedure of the A2A router runs with: the caller, as the
 * connection established it (principal, protocol version, extensions, and a
 * signal that aborts when the connection closes), and the connection's
 * stream slots when the server bounds them.
 */
export interface A2ARouterContext {
  readonly call: CallContext;
  readonly slots?: ConnectionSlots | undefined;
}

/** Lower-case header-like entries: the upgrade request's headers, overridden by connection params. */
export function connectionHeaders(
  headers: IncomingHttpHeaders,
  connectionParams: Readonly<Record<string, string | undefined>> | null | undefined,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  for (const [name, value] of Object.entries(connectionParams ?? {})) out[name.toLowerCase()] = value;
  return out;
}

/**
 * The protocol version of a connection: this binding carries the v1.0 wire
 * shapes only, so no `a2a-version` means 1.0, and anything that is not 1.x
 * is VersionNotSupported.
 */
export function bindingVersion(requested: string | undefined): '1.0' {
  if (!requested?.trim()) return '1.0';
  if (negotiateVersion(requested) === '1.0') return '1.0';
  throw new A2AError(
    'VersionNotSupported',
    `A2A ${requested} is not served over WebSocket: this binding speaks 1.0 only; send a2a-version 1.0 (or none), or use the JSON-RPC binding for 0.3`,
    { requestedVersion: requested },
  );
}

/**
 * The WebSocket close code of a connection refused with `error`: 4000 plus
 * the error's HTTP status (4401 for Unauthenticated, 4400 for
 * VersionNotSupported, 4500 when the auth hook failed).
 */
export function closeCodeOf(error: A2AError): number {
  return 4000 + error.httpStatus;
}

/** A close reason `REASON: message`, cut to the 123 bytes a close frame allows. */
export function closeReasonOf(error: A2AError): string {
  let reason = `${error.reason}: ${error.message}`;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}

/** How connection contexts are made. */
export interface ContextOptions {
  readonly auth?: AuthPolicy | undefined;
  /** The stream slots of each live connection. */
  readonly slotsOf: (socket: WebSocket) => ConnectionSlots | undefined;
}

/**
 * The ws adapter's `createContext`: authenticates the connection once (the
 * upgrade request's `x-api-key` / `authorization`, or the same names in
 * tRPC connection params) with core's auth hooks, and reads `a2a-version`
 * and `a2a-extensions`. A refused connection gets the error as a tRPC error
 * and is closed with {@link closeCodeOf} and the reason, so that no call runs
 * on it.
 */
export function createContextFactory(options: ContextOptions) {
  return async ({ req, res, info }: CreateWSSContextFnOptions): Promise<A2ARouterContext> => {
    const headers = connectionHeaders(req.headers, info.connectionParams);
    try {
      const socket = req.socket as Partial<TLSSocket>;
      const certificate = socket.getPeerCertificate ? clientCertificateOf(socket.getPeerCertificate(), socket.authorized === true) : undefined;
      const principal = await authenticateRequest(options.auth, { headers, certificate });
      const version = bindingVersion(headers['a2a-version']);
      const extensions = headers['a2a-extensions']
        ?.split(',')
        .map((e) => e.trim())
        .filter(Boolean);
      const slots = options.slotsOf(res);
      return { call: { principal, version, extensions, signal: slots?.signal }, slots };
    } catch (cause) {
      const error = A2AError.is(cause) ? cause : new A2AError('Internal', 'The server could not authenticate this connection (see its log)');
      res.close(closeCodeOf(error), closeReasonOf(error));
      throw new TRPCError({ code: trpcCodeOf(error), message: error.message, cause: A2AError.is(cause) ? error : cause });
    }
  };
}
