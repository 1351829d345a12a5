import { A2AError } from './errors.js';

/** The protocol versions Taskwire serves. */
export const SUPPORTED_VERSIONS = ['1.0', '0.3'] as const;
/** A served protocol version. */
export type ProtocolVersion = (typeof SUPPORTED_VERSIONS)[number];

/** `Major.Minor`, optionally followed by a patch number (which does not take part in negotiation). */
const VERSION = /^(\d+)\.(\d+)(?:\.\d+)?$/;

/**
 * The version a request asks for, from its `A2A-Version` header or
 * parameter (§3.6): empty or absent means 0.3 (as the spec says);
 * otherwise it must be `Major.Minor` (`1.0`), and a patch number is ignored
 * (`1.0.3` is 1.0). Anything else, a bare major (`1`) included, and any
 * version not served is `VersionNotSupported`.
 */
export function negotiateVersion(requested: string | undefined | null): ProtocolVersion {
  const value = (requested ?? '').trim();
  if (value === '') return '0.3';
  const match = VERSION.exec(value);
  const version = match ? `${match[1]}.${match[2]}` : undefined;
  if (version !== undefined && (SUPPORTED_VERSIONS as readonly string[]).includes(version)) return version as ProtocolVersion;
  const form = match ? '' : ' (a version is Major.Minor, such as 1.0)';
  throw new A2AError('VersionNotSupported', `A2A version ${value} is not supported${form}; this agent speaks ${SUPPORTED_VERSIONS.join(' and ')}`, {
    requestedVersion: value,
  });
}
