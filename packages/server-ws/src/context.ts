import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AuthPolicy, CallContext } from '@taskwire/core';
import { A2AError, assertCredentialLive, authenticateRequest, clientCertificateOf, expiryOf, negotiateVersion, NEXT_VERSION, versionParameter } from '@taskwire/core';
import { TRPCError } from '@trpc/server';
import type { CreateWSSContextFnOptions } from '@trpc/server/adapters/ws';
import type { WebSocket } from 'ws';
import type { ConnectionSlots } from './connection.js';
import { closeCodeOf, closeReasonOf } from './close-codes.js';
import { closeWhenCredentialEnds } from './credential-expiry.js';
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
  /**
   * When the connection's credential ends (ms since the epoch; the
   * principal's `expiresAt`): calls from then on are `Unauthenticated`,
   * and the connection is closed with 4401 then (as it is when the
   * principal's credential is withdrawn).
   */
  readonly expiresAt?: number | undefined;
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
 * The version a connection asks for: `a2a-version` from its connection
 * params or upgrade headers (see {@link connectionHeaders}), else the
 * upgrade URL's `A2A-Version` query parameter, the request parameter the
 * specification allows instead of the header (a browser's WebSocket cannot
 * send headers).
 */
export function requestedVersion(headers: Readonly<Record<string, string | undefined>>, url: string | undefined): string | undefined {
  return headers['a2a-version'] ?? versionParameter(new URL(url ?? '/', 'http://localhost').searchParams);
}

/**
 * The protocol version of a connection: this binding carries the v1.0 wire
 * shapes only, so no `a2a-version` means 1.0; 1.1 (the same shapes with
 * generations) goes on to the service, which serves it or refuses it (see
 * `TaskServiceOptions.protocol`); anything else is VersionNotSupported.
 */
export function bindingVersion(requested: string | undefined): '1.0' | typeof NEXT_VERSION {
  if (!requested?.trim()) return '1.0';
  const negotiated = negotiateVersion(requested, { next: true });
  if (negotiated === '1.0' || negotiated === NEXT_VERSION) return negotiated;
  throw new A2AError(
    'VersionNotSupported',
    `A2A ${requested} is not served over WebSocket: this binding speaks 1.0 only; send a2a-version 1.0 (or none), or use the JSON-RPC binding for 0.3`,
    { requestedVersion: requested },
  );
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
 * (also the URL's `A2A-Version` parameter) and `a2a-extensions`. A refused connection gets the error as a tRPC error
 * and is closed with {@link closeCodeOf} and the reason, so that no call runs
 * on it. A principal with an `expiresAt` (a JWT's `exp`) holds until then:
 * an already expired one is refused, and the connection is closed (4401)
 * when it expires; so it is when a principal's `withdrawn` signal aborts
 * (its token's signing key was withdrawn).
 */
export function createContextFactory(options: ContextOptions) {
  return async ({ req, res, info }: CreateWSSContextFnOptions): Promise<A2ARouterContext> => {
    const headers = connectionHeaders(req.headers, info.connectionParams);
    try {
      const socket = req.socket as Partial<TLSSocket>;
      const certificate = socket.getPeerCertificate ? clientCertificateOf(socket.getPeerCertificate(), socket.authorized === true) : undefined;
      const principal = await authenticateRequest(options.auth, { headers, certificate });
      assertCredentialLive(principal);
      const expiresAt = expiryOf(principal);
      const version = bindingVersion(requestedVersion(headers, req.url));
      const extensions = headers['a2a-extensions']
        ?.split(',')
        .map((e) => e.trim())
        .filter(Boolean);
      const slots = options.slotsOf(res);
      closeWhenCredentialEnds(res, principal);
      return { call: { principal, version, extensions, signal: slots?.signal }, slots, expiresAt };
    } catch (cause) {
      const error = A2AError.is(cause) ? cause : new A2AError('Internal', 'The server could not authenticate this connection (see its log)');
      res.close(closeCodeOf(error), closeReasonOf(error));
      throw new TRPCError({ code: trpcCodeOf(error), message: error.message, cause: A2AError.is(cause) ? error : cause });
    }
  };
}
