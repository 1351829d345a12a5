import { A2AError } from './errors.js';
import type { MethodName } from './methods.js';
import type { CallContext, Principal } from './calls.js';

/**
 * What an authentication hook sees of a request, whatever the transport:
 * header-like entries with lower-case names (HTTP headers, gRPC metadata,
 * WebSocket connection params).
 */
export interface AuthRequest {
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The client certificate of a TLS connection that presented one (HTTPS, gRPC over TLS, WSS). */
  readonly certificate?: ClientCertificate | undefined;
}

/**
 * A client certificate as transports hand it to auth hooks (the fields of
 * node's `getPeerCertificate()` that name the peer).
 */
export interface ClientCertificate {
  /** Subject attributes, e.g. `{ CN: 'billing-agent', O: 'Acme' }` (several values of one attribute as an array). */
  readonly subject: Readonly<Record<string, string | readonly string[]>>;
  /** The subjectAltName extension as node writes it: `DNS:agent.example.com, URI:spiffe://acme/agent`. */
  readonly subjectAltName?: string | undefined;
  /** SHA-256 fingerprint, colon-separated hex. */
  readonly fingerprint256?: string | undefined;
  /** True when the certificate chains to a CA the server trusts (the TLS layer checked it). */
  readonly authorized: boolean;
}

/** The shape of node's peer certificate that {@link clientCertificateOf} reads (no `node:` import: core runs in browsers). */
interface PeerCertificateLike {
  readonly subject?: unknown;
  readonly subjectaltname?: string | undefined;
  readonly fingerprint256?: string | undefined;
}

/**
 * The {@link ClientCertificate} of a TLS peer, from node's
 * `getPeerCertificate()` result (an empty object when the peer sent none:
 * then `undefined`) and whether the TLS layer authorized it.
 */
export function clientCertificateOf(peer: PeerCertificateLike | null | undefined, authorized: boolean): ClientCertificate | undefined {
  if (!peer || typeof peer.subject !== 'object' || peer.subject === null) return undefined;
  return { subject: { ...(peer.subject as Record<string, string | string[]>) }, subjectAltName: peer.subjectaltname, fingerprint256: peer.fingerprint256, authorized };
}

/**
 * Establishes who is calling. Resolves the principal, or `undefined` for an
 * anonymous caller (allowed only when the server does not require auth);
 * throws an `Unauthenticated` A2AError for bad credentials.
 */
export type Authenticate = (request: AuthRequest) => Principal | undefined | Promise<Principal | undefined>;

/** How a server reports a missing credential: the `WWW-Authenticate` challenge it sends. */
export interface AuthPolicy {
  readonly authenticate: Authenticate;
  /** When true (the default), an anonymous caller gets `Unauthenticated`. */
  readonly required?: boolean;
  /** The challenge of a 401 (`WWW-Authenticate`), e.g. `Bearer realm="a2a"`. */
  readonly challenge?: string;
}

function bearerToken(request: AuthRequest): string | undefined {
  const header = request.headers['authorization'];
  const match = header ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
  return match?.[1];
}

/**
 * API-key authentication: the key in `x-api-key` (or `Authorization: Bearer
 * <key>`) must be one of `keys`; its value names the principal. A wrong key
 * is `Unauthenticated`; no key is anonymous.
 */
export function apiKeyAuth(keys: Readonly<Record<string, string>> | ((key: string) => Principal | undefined)): Authenticate {
  const lookup = typeof keys === 'function' ? keys : (key: string) => (Object.hasOwn(keys, key) ? { id: keys[key]! } : undefined);
  return (request) => {
    const key = request.headers['x-api-key'] ?? bearerToken(request);
    if (key === undefined || key === '') return undefined;
    const principal = lookup(key);
    if (!principal) throw new A2AError('Unauthenticated', 'The API key is not valid; send a valid key in x-api-key');
    return principal;
  };
}

/**
 * Bearer-token authentication: `verify` checks the token of
 * `Authorization: Bearer <token>` and returns its principal, or undefined
 * when it is not valid (`Unauthenticated`). No token is anonymous.
 */
export function bearerAuth(verify: (token: string) => Principal | undefined | Promise<Principal | undefined>): Authenticate {
  return async (request) => {
    const token = bearerToken(request);
    if (token === undefined) return undefined;
    const principal = await verify(token);
    if (!principal) throw new A2AError('Unauthenticated', 'The bearer token is not valid or has expired');
    return principal;
  };
}

/**
 * Runs a policy: resolves the caller's principal, or throws `Unauthenticated`
 * when credentials are wrong, or missing while required.
 */
export async function authenticateRequest(policy: AuthPolicy | undefined, request: AuthRequest): Promise<Principal | undefined> {
  if (!policy) return undefined;
  const principal = await policy.authenticate(request);
  if (!principal && policy.required !== false) {
    throw new A2AError('Unauthenticated', 'This agent requires authentication: send x-api-key or Authorization: Bearer <token>');
  }
  return principal;
}

/** One call as an authorization hook sees it: the method, its validated params and the caller. */
export interface AuthorizeCall {
  readonly method: MethodName;
  readonly params: unknown;
  readonly context: CallContext;
}

/**
 * Decides whether a call may run: resolves to allow, throws a
 * `PermissionDenied` A2AError to refuse (see {@link permissionDenied}).
 * Runs in the service for every transport, after authentication.
 */
export type Authorize = (call: AuthorizeCall) => void | Promise<void>;

/**
 * PermissionDenied for a caller who lacks `scopes` (all of them are
 * needed): HTTP answers 403 with an RFC 6750 `insufficient_scope`
 * challenge naming them, gRPC PERMISSION_DENIED.
 */
export function permissionDenied(scopes: readonly string[], what: string): A2AError {
  const scope = scopes.join(' ');
  return new A2AError('PermissionDenied', `${what} needs the scope ${scope}, which the caller's credential does not grant`, { error: 'insufficient_scope', scope });
}

/** A quoted-string of RFC 9110 (quotes and backslashes escaped, control and non-ASCII characters dropped). */
function quoted(value: string): string {
  return `"${value.replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/**
 * The `WWW-Authenticate` value of an authentication or authorization
 * error: `base` (e.g. `Bearer realm="a2a"`) with RFC 6750's `error`,
 * `error_description` and `scope` parameters when the error's metadata
 * carries `error` (as `jwtAuth` and {@link permissionDenied} set it). A
 * challenge that is not `Bearer` is returned as it is.
 */
export function authChallenge(error: A2AError, base = 'Bearer realm="a2a"'): string {
  const code = error.metadata['error'];
  if (!code || !/^bearer\b/i.test(base)) return base;
  const params = [`error=${quoted(code)}`];
  if (error.kind === 'Unauthenticated') params.push(`error_description=${quoted(error.message)}`);
  if (error.metadata['scope']) params.push(`scope=${quoted(error.metadata['scope'])}`);
  const sep = /^bearer\s*$/i.test(base) ? ' ' : ', ';
  return `${base}${sep}${params.join(', ')}`;
}
