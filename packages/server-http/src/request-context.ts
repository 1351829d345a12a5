import type { AuthPolicy, CallContext, Principal, ServerVersion } from '@taskwire/core';
import { authenticateRequest, ExtensionActivation, formatExtensionsHeader, negotiateVersion, parseExtensionsHeader, versionParameter } from '@taskwire/core';
import type { HttpRequest } from './http-types.js';
import { header } from './http-types.js';

/** A call context whose protocol version has been negotiated (1.1 included: the service refuses it unless it serves it). */
export interface HttpCallContext extends CallContext {
  readonly version: ServerVersion;
}

/** The requested protocol version: the `A2A-Version` header, else the `A2A-Version` query parameter. */
export function requestedVersion(request: HttpRequest): string | undefined {
  const fromHeader = header(request.headers, 'a2a-version');
  if (fromHeader !== undefined || request.query === '') return fromHeader;
  return versionParameter(new URLSearchParams(request.query));
}

/**
 * The `A2A-Extensions` header of a successful answer: the extensions the
 * agent activated for the call (sealing its activation: the set is final
 * once the answer's headers are written). Undefined when none were.
 */
export function extensionHeaders(context: CallContext): Record<string, string> | undefined {
  const activated = context.activation?.seal();
  return activated?.length ? { 'a2a-extensions': formatExtensionsHeader(activated) } : undefined;
}

/** Authenticates the caller (throws `Unauthenticated`); without a policy every caller is anonymous. */
export function authenticate(request: HttpRequest, auth: AuthPolicy | undefined): Promise<Principal | undefined> | undefined {
  return auth && authenticateRequest(auth, { headers: request.headers as Readonly<Record<string, string | undefined>>, certificate: request.certificate?.() });
}

/**
 * Builds the call context of a request: its protocol version (throws
 * `VersionNotSupported`), requested extensions, its `Idempotency-Key`,
 * tenant and the principal authentication established.
 */
export function callContextOf(
  request: HttpRequest,
  principal: CallContext['principal'],
  tenant: string | undefined,
): HttpCallContext {
  const extensions = parseExtensionsHeader(request.headers['a2a-extensions']);
  return {
    principal,
    tenant,
    version: negotiateVersion(requestedVersion(request), { next: true }),
    extensions,
    activation: extensions && new ExtensionActivation(extensions),
    idempotencyKey: header(request.headers, 'idempotency-key'),
  };
}
