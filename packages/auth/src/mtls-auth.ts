import type { Authenticate, ClientCertificate, Principal } from '@taskwire/core';
import { A2AError } from '@taskwire/core';

/** Options of {@link mtlsAuth}. */
export interface MtlsAuthOptions {
  /**
   * What names the caller: `san` (default) the first `URI:` entry of the
   * subjectAltName (a SPIFFE id, say), else its first `DNS:` entry, else
   * the subject CN; `subject` the subject CN alone; or a function of the
   * certificate (`undefined` refuses it).
   */
  readonly principal?: 'san' | 'subject' | ((certificate: ClientCertificate) => Principal | undefined);
  /** Scopes the principal holds (for `scopePolicy`): a list for every certificate, or a function of it. Default none. */
  readonly scopes?: readonly string[] | ((certificate: ClientCertificate) => readonly string[]);
}

/** The principal of an mTLS caller: its name, scopes, and the certificate it presented. */
export interface MtlsPrincipal extends Principal {
  readonly scopes: readonly string[];
  readonly certificate: ClientCertificate;
}

/** The entries of a subjectAltName string of one kind (`URI`, `DNS`, `email`, `IP Address`), in order. */
export function altNames(certificate: ClientCertificate, kind: string): string[] {
  return (certificate.subjectAltName ?? '')
    .split(/,\s*/)
    .filter((entry) => entry.startsWith(`${kind}:`))
    .map((entry) => entry.slice(kind.length + 1));
}

function commonName(certificate: ClientCertificate): string | undefined {
  const cn = certificate.subject['CN'];
  return typeof cn === 'string' ? cn : cn?.[0];
}

/**
 * Mutual-TLS authentication: the caller is the client certificate the TLS
 * layer verified (HTTPS with `tls: { requestCert: true, ca, ... }`, gRPC
 * with `ServerCredentials.createSsl(ca, keys, true)`). No certificate is
 * an anonymous caller; a certificate the TLS layer did not authorize, or
 * that names no one, is `Unauthenticated`.
 */
export function mtlsAuth(options: MtlsAuthOptions = {}): Authenticate {
  const choose = options.principal ?? 'san';
  const scopes = options.scopes ?? [];
  return ({ certificate }) => {
    if (!certificate) return undefined;
    if (!certificate.authorized) throw new A2AError('Unauthenticated', 'The client certificate is not signed by a CA this agent trusts', { error: 'invalid_certificate' });
    if (typeof choose === 'function') {
      const principal = choose(certificate);
      if (!principal) throw new A2AError('Unauthenticated', 'The client certificate does not name a caller this agent knows');
      return principal;
    }
    const id = choose === 'subject' ? commonName(certificate) : (altNames(certificate, 'URI')[0] ?? altNames(certificate, 'DNS')[0] ?? commonName(certificate));
    if (!id) throw new A2AError('Unauthenticated', 'The client certificate names no subject (no SAN and no CN)');
    const principal: MtlsPrincipal = { id, scopes: typeof scopes === 'function' ? scopes(certificate) : scopes, certificate };
    return principal;
  };
}
