import { A2AError } from './errors.js';

/** The protocol versions Taskwire serves. */
export const SUPPORTED_VERSIONS = ['1.0', '0.3'] as const;
/** A served protocol version. */
export type ProtocolVersion = (typeof SUPPORTED_VERSIONS)[number];

/**
 * The version a request asks for, from its `A2A-Version` header or
 * parameter: empty or absent means 0.3 (as the spec says); `1`, `1.0` and
 * `1.0.x` mean 1.0 (patch versions are ignored). Anything else is
 * `VersionNotSupported`.
 */
export function negotiateVersion(requested: string | undefined | null): ProtocolVersion {
  const value = (requested ?? '').trim();
  if (value === '') return '0.3';
  const [major, minor = '0'] = value.split('.');
  const version = `${major}.${minor}`;
  if ((SUPPORTED_VERSIONS as readonly string[]).includes(version)) return version as ProtocolVersion;
  throw new A2AError('VersionNotSupported', `A2A version ${value} is not supported; this agent speaks ${SUPPORTED_VERSIONS.join(' and ')}`, {
    requestedVersion: value,
  });
}
