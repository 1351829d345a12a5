import type { Authenticate, ClientCertificate, Principal } from '@taskwire/core';
import { A2AError } from '@taskwire/core';
import { parseSubjectAltName } from './subject-alt-name.js';

export type { AltName } from './subject-alt-name.js';
export { parseSubjectAltName } from './subject-alt-name.js';

/**
 * How {@link mtlsAuth} names the caller:
 * - `uri` (default): the certificate's first `URI` subjectAltName (a
 *   SPIFFE id, say), as it is; a certificate without one is refused.
 * - `san`: the first `URI` SAN, else the first `DNS` SAN, else the subject
 *   CN, each prefixed with where it came from (`uri:spiffe://acme/agent`,
 *   `dns:agent.example.com`, `cn:agent`), so that a DNS name or CN that
 *   spells another caller's URI names someone else.
 * - `subject`: the subject CN alone, as it is.
 * - a function of the certificate (`undefined` refuses it).
 */
export type MtlsPrincipalSource = 'uri' | 'san' | 'subject' | ((certificate: ClientCertificate) => Principal | undefined);

/** Options of {@link mtlsAuth}. */
export interface MtlsAuthOptions {
  /** What names the caller (default `uri`); see {@link MtlsPrincipalSource}. */
  readonly principal?: MtlsPrincipalSource;
  /** Scopes the principal holds (for `scopePolicy`): a list for every certificate, or a function of it. Default none. */
  readonly scopes?: readonly string[] | ((certificate: ClientCertificate) => readonly string[]);
}

/** The principal of an mTLS caller: its name, scopes, and the certificate it presented. */
export interface MtlsPrincipal extends Principal {
  readonly scopes: readonly string[];
  readonly certificate: ClientCertificate;
}

/**
 * The values of a certificate's subjectAltName entries of one kind (`URI`,
 * `DNS`, `email`, `IP Address`), in order, read with
 * {@link parseSubjectAltName} (quoted values unescaped). Throws when the
 * extension cannot be read.
 */
export function altNames(certificate: ClientCertificate, kind: string): string[] {
  return parseSubjectAltName(certificate.subjectAltName ?? '')
    .filter((entry) => entry.kind === kind)
    .map((entry) => entry.value);
}

function commonName(certificate: ClientCertificate): string | undefined {
  const cn = certificate.subject['CN'];
  return typeof cn === 'string' ? cn : cn?.[0];
}

/** The caller's name under `source` (a string mode), or `undefined` when the certificate has none of that kind. */
function nameOf(certificate: ClientCertificate, source: 'uri' | 'san' | 'subject'): string | undefined {
  if (source === 'subject') return commonName(certificate);
  const uri = altNames(certificate, 'URI')[0];
  if (source === 'uri') return uri;
  if (uri !== undefined) return `uri:${uri}`;
  const dns = altNames(certificate, 'DNS')[0];
  if (dns !== undefined) return `dns:${dns}`;
  const cn = commonName(certificate);
  return cn === undefined ? undefined : `cn:${cn}`;
}

const MISSING: Record<'uri' | 'san' | 'subject', string> = {
  uri: 'The client certificate has no URI subjectAltName (a SPIFFE id, say), which names callers here',
  san: 'The client certificate names no subject (no URI or DNS subjectAltName and no CN)',
  subject: 'The client certificate has no subject CN, which names callers here',
};

/**
 * Mutual-TLS authentication: the caller is the client certificate the TLS
 * layer verified (HTTPS with `tls: { requestCert: true, ca, ... }`, gRPC
 * with `ServerCredentials.createSsl(ca, keys, true)`), named as
 * `options.principal` says (by default its URI SAN). No certificate is an
 * anonymous caller; a certificate the TLS layer did not authorize, whose
 * subjectAltName cannot be read, or that names no one, is `Unauthenticated`.
 */
export function mtlsAuth(options: MtlsAuthOptions = {}): Authenticate {
  const source = options.principal ?? 'uri';
  const scopes = options.scopes ?? [];
  return ({ certificate }) => {
    if (!certificate) return undefined;
    if (!certificate.authorized) throw new A2AError('Unauthenticated', 'The client certificate is not signed by a CA this agent trusts', { error: 'invalid_certificate' });
    if (typeof source === 'function') {
      const principal = source(certificate);
      if (!principal) throw new A2AError('Unauthenticated', 'The client certificate does not name a caller this agent knows');
      return principal;
    }
    let id: string | undefined;
    try {
      id = nameOf(certificate, source);
    } catch {
      throw new A2AError('Unauthenticated', 'The subjectAltName of the client certificate could not be read', { error: 'invalid_certificate' });
    }
    if (id === undefined || id === '') throw new A2AError('Unauthenticated', MISSING[source]);
    const principal: MtlsPrincipal = { id, scopes: typeof scopes === 'function' ? scopes(certificate) : scopes, certificate };
    return principal;
  };
}
