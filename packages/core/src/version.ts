import { A2AError } from './errors.js';

/** The protocol versions Taskwire serves. */
export const SUPPORTED_VERSIONS = ['1.0', '0.3'] as const;
/** A served protocol version. */
export type ProtocolVersion = (typeof SUPPORTED_VERSIONS)[number];

/**
 * The next protocol version (A2A 1.1, still a draft), which a server offers
 * only when its service opts in (`TaskServiceOptions.protocol.v1_1`).
 */
export const NEXT_VERSION = '1.1';
/** A version a server may negotiate: a served one, or {@link NEXT_VERSION}. */
export type ServerVersion = ProtocolVersion | typeof NEXT_VERSION;

/** `Major.Minor`, optionally followed by a patch number (which does not take part in negotiation). */
const VERSION = /^(\d+)\.(\d+)(?:\.\d+)?$/;

/**
 * The version a request asks for, from its `A2A-Version` header or
 * parameter (§3.6): empty or absent means 0.3 (as the spec says);
 * otherwise it must be `Major.Minor` (`1.0`), and a patch number is ignored
 * (`1.0.3` is 1.0). Anything else, a bare major (`1`) included, and any
 * version not served is `VersionNotSupported`.
 */
export function negotiateVersion(requested: string | undefined | null): ProtocolVersion;
/**
 * As a server negotiates: with `next`, {@link NEXT_VERSION} is taken too
 * (the service then refuses it unless it opted in: see
 * `TaskServiceOptions.protocol`).
 */
export function negotiateVersion(requested: string | undefined | null, options: { readonly next: boolean }): ServerVersion;
export function negotiateVersion(requested: string | undefined | null, options?: { readonly next: boolean }): ServerVersion {
  const value = (requested ?? '').trim();
  if (value === '') return '0.3';
  const match = VERSION.exec(value);
  const version = match ? `${match[1]}.${match[2]}` : undefined;
  if (version !== undefined && (SUPPORTED_VERSIONS as readonly string[]).includes(version)) return version as ProtocolVersion;
  if (version === NEXT_VERSION && options?.next) return NEXT_VERSION;
  const form = match ? '' : ' (a version is Major.Minor, such as 1.0)';
  throw new A2AError('VersionNotSupported', `A2A version ${value} is not supported${form}; this agent speaks ${SUPPORTED_VERSIONS.join(' and ')}`, {
    requestedVersion: value,
  });
}

/**
 * A card's interfaces for a service that serves A2A 1.1 (`protocol.v1_1`):
 * each of `interfaces` announced first as {@link NEXT_VERSION} (clients that
 * speak it, `@taskwire/client` among them, pick those) and then again as
 * given (for clients that speak only what they say). Returns a new array;
 * `interfaces` is not changed.
 */
export function withNextVersion<I extends { readonly protocolVersion: string }>(interfaces: readonly I[]): I[] {
  return [...interfaces.map((i) => ({ ...i, protocolVersion: NEXT_VERSION })), ...interfaces];
}

/**
 * The request parameter that carries the protocol version where a header
 * cannot: the specification lets a client send `A2A-Version` as a request
 * (query) parameter instead of the header. A browser's WebSocket, which
 * cannot set upgrade headers, sends it this way.
 */
export const VERSION_PARAMETER = 'A2A-Version';

/** The `A2A-Version` request parameter of `params` (spelled so, or in lower case), if there is one. */
export function versionParameter(params: URLSearchParams): string | undefined {
  return params.get(VERSION_PARAMETER) ?? params.get(VERSION_PARAMETER.toLowerCase()) ?? undefined;
}
